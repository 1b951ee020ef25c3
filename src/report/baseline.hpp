#pragma once
// `npgpu report --baseline`: each path of a run against the same path in a reference, size by size
// (a curve) or cell by cell (an all-pairs matrix), and what the paths that fall short share. Pure:
// figures in, shortfalls and words out; docs/ARCHITECTURE.md, "Against a reference", says why the
// bound is what it is.
#include <string>
#include <vector>

namespace npgpu {

// A path at one size: the rate of its fastest trial (noise only ever slows a trial), how far its
// figures spread (natural log of the rate, 1.48 x the median absolute deviation), and how many
// records stand behind it (a fleet reference folds several nodes' records into one figure).
struct SizeFigure {
  double bytes = 0;
  double rate = 0;    // B/s
  double spread = 0;  // log
  int records = 1;
};

// Which of a record's trials stands for it at a size. `fastest`: what the path can do, since noise
// only ever slows a trial (a baseline). `median`: what a typical message meets, for a run under
// load, whose pauses (TCP's window, the load's own steps) leave a few trials as fast as alone.
enum class TrialsBy { fastest, median };

// One record's trials at a size (their rates, B/s): the fastest or the median, and the trials' spread.
SizeFigure figure_of_trials(double bytes, const std::vector<double>& rates, TrialsBy by = TrialsBy::fastest);
// Several records' figures at a size (their rates, B/s): the median, and the spread across them.
SizeFigure figure_of_records(double bytes, const std::vector<double>& rates);

// One path judged: a curve, or a cell of a matrix.
struct PathFigures {
  std::string name;                // "rank0", "rank 1 -> rank 3"
  std::vector<std::string> hosts;  // the hosts of its ends
  std::vector<int> ranks;          // its ranks (a curve of one rank: that rank alone)
  std::vector<SizeFigure> sizes;   // increasing bytes
};

// A size of a path under its reference by more than noise explains.
struct Shortfall {
  std::string run;  // "file:/runs/0001"
  std::string path;
  std::vector<std::string> hosts;
  std::vector<int> ranks;
  double bytes = 0;
  double measured = 0, reference = 0;  // B/s, fastest trial; the reference's figure
  double ratio = 0;                    // measured / reference
  double bound = 0;                    // the ratio under which this size falls short
  int reference_records = 1;
};

// A loss smaller than this factor is never told, however quiet both records are.
inline constexpr double kLeastLoss = 1.1;
// ... nor, on a curve or a matrix judged against one other launch, one smaller than this: a launch
// sets the level of a path's small sizes for its whole run (the cores its ranks landed on, what
// their caches hold), which no record of one launch shows. 10 healthy launches of mpi over TCP on
// this project's quiet 2-core machine differed so by up to x0.63 over rows of 9 sizes and more
// under 1 KiB (x0.84 above; 90 ordered pairs); a healthy health check of 4 virtual hosts told 3 of
// its 12 8 B cells at x0.63 to x0.70 of the reference launch's, in both passes. A path at half its
// rate is still told. A fleet reference knows how its launches differ and keeps kLeastLoss
// (docs/ARCHITECTURE.md, "Against a reference") ...
inline constexpr double kLeastLossAgainstOneLaunch = 1.8;
// ... once this many records stand behind each of a path's figures: fewer launches may all have
// landed alike. 20 healthy launches of 4 virtual hosts here, 8 B cells (their fastest trials):
// launch levels from 7.9 to 12.6 us. Judged by the median and spread of a fleet of others drawn at
// random, at kLeastLoss, a healthy launch was told in 19% of draws against 3, 11% against 5, 6%
// against 7, 1.2% against 10, none against 15.
inline constexpr int kRecordsToShowHowLaunchesDiffer = 10;
// A size falls short where the log of its ratio lies this many noise widths under 0 ...
inline constexpr double kNoiseWidths = 3;
// ... and, on a curve, in a row of at least this many sizes that do (three of NetPIPE's size
// classes, an octave from first to last): sizes measured one after another share a disturbance of
// the machine, and two healthy launches on this project's 2-core machine differed so at up to 5
// sizes in a row under another's load (docs/ARCHITECTURE.md, "Against a reference"), and at 6
// (509 to 771 B, mpi over TCP) in a quiet CI run.
inline constexpr std::size_t kSizesInARow = 9;

// The sizes of a curve that fall short of the same sizes of its reference.
// `in_a_row`: a run under load judges its few sizes (--sizes 8) against its own isolated run, each
// one alone where the curve has fewer sizes than a row.
// `least_loss`: kLeastLossAgainstOneLaunch where the reference is one other launch.
std::vector<Shortfall> curve_shortfalls(const std::string& run, const PathFigures& measured,
                                        const PathFigures& reference, std::size_t in_a_row = kSizesInARow,
                                        double least_loss = kLeastLoss);
// The cells of a matrix that fall short of theirs, size by size; `reference` index for index with
// `measured`. A cell counts only beside another short cell of one of its hosts at that size (its
// reverse, or another link of that host): noise seldom strikes two links of one host in one launch,
// and a lone cell of 8 B did fall short by x0.35 in 2 of 3 launches on virtual clusters here. A link
// slowed one way only is not told.
// `same_launch`: the reference is the same cells of the same launch (a run under load against its
// isolated run), so how its cells scatter about each other is the matrix's own shape (a trunk's
// crowded cells against the others), not what the machine does between launches: left out.
// `least_loss` as for a curve: kLeastLossAgainstOneLaunch where the reference is one other launch.
std::vector<Shortfall> cell_shortfalls(const std::string& run, const std::vector<PathFigures>& measured,
                                       const std::vector<PathFigures>& reference, bool same_launch = false,
                                       double least_loss = kLeastLoss);

// What the shortfalls share, in words, one line each: "every link of host h3: at 8 B and 1 MiB
// (x0.31 to x0.35 of the reference)", "every link, the whole node: ...". `compared` are the paths
// judged, those that did not fall short included.
std::vector<std::string> shared_shortfalls(const std::vector<Shortfall>& shortfalls,
                                           const std::vector<PathFigures>& compared);

// A ratio as the report writes it: "x0.33".
std::string ratio_text(double ratio);

}  // namespace npgpu
