#pragma once
// One run as reporters see it: what was asked, where it ran, and the curves measured.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "npgpu/catalog.hpp"
#include "results/load_plan.hpp"
#include "results/options.hpp"
#include "results/pair_matrix.hpp"
#include "npgpu/pairing.hpp"
#include "results/results.hpp"
#include "system/sysinfo.hpp"

namespace npgpu {

// The way of measuring (the driver's rules for warm-up, repetitions, trials and timing, and what a
// figure means). Raise it when a change makes figures of older records incomparable with new ones:
// `npgpu report --baseline` refuses to judge a run against a reference of another method.
inline constexpr int kMethodVersion = 1;

struct RunRecord {
  ModuleInfo module;
  RunOptions options;  // schedule.upper resolved to the module's default when not given
  SystemInfo system;
  std::string timer_description;
  double timer_resolution = 0;
  std::string primary_timer;         // what trial_seconds were timed with
  std::string alt_timer;             // the module's second timer, or empty
  std::string data_check;            // what was checked of the data, per message and per trial
  std::string timing;                // who times and what one transfer is
  std::string throughput_meaning;    // what bytes a transfer counts
  std::string buffers;               // cache-cold or warm, and over how much memory
  std::string waits;                 // how long a wait may last before the run stops
  std::string window_rule;           // stream and bidir windows: how many messages, chosen how; empty otherwise
  std::string record_lock;           // how writers of the record took turns, and HDF5's own file locking
  std::vector<std::uint64_t> schedule;  // --pairs all: the matrices' sizes
  RankPairing pairing;                   // pair modules: which ranks measured together
  std::vector<Pattern> patterns;         // the pattern of each size of the schedule
  std::string started_utc;
  std::string finished_utc;
  RunStatus status = RunStatus::incomplete;  // as last saved
  std::string status_reason;          // why it is not complete
  std::vector<ExpectationOutcome> expectations;  // judged when the run is complete
  std::vector<Curve> curves;         // complete on rank 0 only
  PairMatrix matrix;                 // --pairs all, on rank 0 only
  std::optional<LoadFacts> load;     // --load: the victims' runs
};

struct Progress {
  std::size_t done = 0;   // sizes finished, counting over all curves
  std::size_t total = 0;
  double seconds_left = 0;
  std::size_t measured_again = 0;  // after the last size: the sizes measured again, in rounds
};

// Reporters read results; they never measure. Called on rank 0 only.
class Reporter {
 public:
  virtual ~Reporter() = default;
  virtual void begin(const RunRecord& record) = 0;
  // Size `index` of the schedule is done for the curves measured at the same time, which are
  // record.curves[first_curve] to the last.
  virtual void size_done(const RunRecord& record, std::size_t first_curve, std::size_t index,
                         const Progress& progress) = 0;
  // --pairs all: size `index` of the schedule is done for every rank in the step of `shift`.
  virtual void matrix_cells_done(const RunRecord& record, int shift, std::size_t index, const Progress& progress) = 0;
  virtual void end(const RunRecord& record) = 0;
};

}  // namespace npgpu
