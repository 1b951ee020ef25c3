#include "run/console.hpp"

#include <algorithm>
#include <set>
#include <string>

#include "run/console_text.hpp"
#include "npgpu/version.hpp"

namespace npgpu {
namespace {

std::string ranks_line(const SystemInfo& system) {
  std::string line = std::to_string(system.ranks.size()) + (system.ranks.size() == 1 ? " rank" : " ranks") +
                     " on " + std::to_string(system.host_count) + (system.host_count == 1 ? " host" : " hosts") + ":";
  for (std::size_t r = 0; r < system.ranks.size(); ++r)
    line += (r ? ", " : " ") + std::string("rank ") + std::to_string(r) + " on " + system.ranks[r].host +
            " (cpus " + system.ranks[r].cpus + ")";
  return line;
}

// "name: value" items, several to a line, continuation lines indented under the first.
std::string facts_lines(const std::vector<std::pair<std::string, std::string>>& facts) {
  constexpr std::size_t kWidth = 110;
  std::string text, line;
  for (const auto& [name, value] : facts) {
    const std::string item = name + ": " + value;
    if (!line.empty() && line.size() + 2 + item.size() > kWidth) {
      text += line + ";\n              ";
      line.clear();
    }
    line += (line.empty() ? "" : "; ") + item;
  }
  return text + line;
}

std::string curve_label(const Curve& curve) {
  const std::string peer = curve.peer < 0 ? "" : "->" + std::to_string(curve.peer);
  return "rank " + std::to_string(curve.rank) + peer + (curve.variant.empty() ? "" : " " + curve.variant);
}

std::string rank_list(const std::vector<int>& ranks) {
  std::string text;
  for (int rank : ranks) text += (text.empty() ? "" : ", ") + std::to_string(rank);
  return text;
}

// Which ranks measure together, and who is idle.
std::string pairs_line(const RunRecord& r) {
  const RankPairing& p = r.pairing;
  if (p.mode == PairingMode::all) {
    std::string sizes;
    for (std::size_t i = 0; i < r.schedule.size(); ++i)
      sizes += (i ? ", " : "") + format_bytes(r.schedule[i]) + " " + pattern_name(r.patterns[i]);
    return describe(p) + ": every ordered pair on mpiGraph's shift schedule, " + std::to_string(pairing_steps(p).size()) +
           " steps; shift k's pairs r -> r + k measured in two or three steps, every other rank of each cycle "
           "sending, so no rank sends and receives at once; sizes " + sizes +
           " (pingpong: latency, stream: throughput)";
  }
  const std::vector<PairStep> steps = pairing_steps(p);
  std::string pairs;
  std::vector<int> idle;
  for (int rank = 0; rank < p.ranks; ++rank) {
    bool busy = false;
    for (const PairStep& step : steps) {
      const Peers& peers = step.peers[static_cast<std::size_t>(rank)];
      if (peers.to >= 0) pairs += (pairs.empty() ? "" : ", ") + std::to_string(rank) + "->" + std::to_string(peers.to);
      busy = busy || !peers.idle();
    }
    if (!busy) idle.push_back(rank);
  }
  const std::string together = p.one_at_a_time ? ", one pair at a time while the others wait"
                               : steps.front().timers.size() > 1 ? ", all pairs at once" : "";
  return describe(p) + ": " + pairs + together + "; the first rank of each pair times" +
         (idle.empty() ? "" : "; ranks " + rank_list(idle) + " idle");
}

// The window a size used, as the table's column (" %6s"); the same for every pair of a step.
std::string window_text(const SizeResult& size) {
  char text[16];
  std::snprintf(text, sizeof text, " %6.0f", size.shape.transfers_per_rep);
  return text;
}

std::string schedule_line(const RunRecord& record) {
  const ScheduleOptions& s = record.options.schedule;
  std::string how = s.fac2 ? "powers of two" : "NetPIPE schedule, perturbation " + std::to_string(s.perturbation);
  return std::to_string(record.schedule.size()) + " from " + format_bytes(record.schedule.front()) + " to " +
         format_bytes(record.schedule.back()) + " (" + how + ")";
}

}  // namespace

void ConsoleReporter::begin(const RunRecord& r) {
  const RunOptions& o = r.options;
  const char* headline = headline_name(o.headline);
  std::fprintf(out_, "npgpu %s: module %s, pattern %s\n", kVersion, r.module.name.c_str(), pattern_name(o.pattern));
  std::fprintf(out_, "  what:       %s\n", r.module.measures.c_str());
  std::fprintf(out_, "  ranks:      %s\n", ranks_line(r.system).c_str());
  if (r.module.layout == Layout::pair) std::fprintf(out_, "  pairs:      %s\n", pairs_line(r).c_str());
  for (std::size_t rank = 0; rank < r.system.ranks.size(); ++rank)
    if (!r.system.ranks[rank].module_facts.empty())
      std::fprintf(out_, "  rank %zu:     %s\n", rank, facts_lines(r.system.ranks[rank].module_facts).c_str());
  std::fprintf(out_, "  timing:     %s\n", r.timing.c_str());
  std::fprintf(out_, "  timer:      %s\n", r.primary_timer.c_str());
  std::fprintf(out_, "  host clock: %s = %s, resolution %s\n", o.timer.c_str(), r.timer_description.c_str(),
               format_seconds(r.timer_resolution).c_str());
  if (!r.alt_timer.empty()) std::fprintf(out_, "  and beside it: %s\n", r.alt_timer.c_str());
  std::fprintf(out_, "  data check: %s\n", r.data_check.c_str());
  std::fprintf(out_, "  sizes:      %s\n", schedule_line(r).c_str());
  std::fprintf(out_, "  trials:     %s each, %llu to %llu per size, until the median's relative standard error is within %s\n",
               format_seconds(o.calibration.trial_seconds).c_str(), static_cast<unsigned long long>(o.min_trials),
               static_cast<unsigned long long>(o.max_trials), percent(o.precision).c_str());
  std::fprintf(out_, "  buffers:    %s\n", r.buffers.c_str());
  if (!r.window_rule.empty()) std::fprintf(out_, "  window:     %s\n", r.window_rule.c_str());
  std::fprintf(out_, "  waits:      %s\n", r.waits.c_str());
  if (!r.record_lock.empty()) std::fprintf(out_, "  record:     %s: %s\n", o.output.c_str(), r.record_lock.c_str());
  std::fprintf(out_, "  throughput: %s, in %s\n", r.throughput_meaning.c_str(),
               o.units == Units::decimal ? "decimal units (1 GB/s = 1e9 B/s)" : "binary units (1 GiB/s = 2^30 B/s)");
  std::fprintf(out_, "  headline:   the %s over trials; +- is the median's relative standard error\n", headline);
  if (r.module.layout == Layout::per_rank && r.system.ranks.size() > 1)
    std::fprintf(out_, "  ranks measure %s; each line shows every rank's %s throughput and their sum\n",
                 o.concurrency == Concurrency::together ? "at the same time" : "one after another", headline);
  else if (r.module.layout == Layout::pair && r.pairing.mode == PairingMode::halves && !r.pairing.one_at_a_time)
    std::fprintf(out_, "  each line shows every pair's %s throughput, their sum and the slowest pair\n", headline);
  else if (r.module.layout == Layout::pair && r.pairing.mode == PairingMode::all)
    std::fprintf(out_, "  each line is one step and size: the %s of its %zu cells, the slowest and the fastest\n",
                 headline, r.system.ranks.size());
  else
    std::fprintf(out_, "\n%-10s %10s %12s %12s %12s %12s %7s %6s%s\n", "", "size", headline, "min", "max",
                 "throughput", "+-", "trials", r.window_rule.empty() ? "" : " window");
  std::fflush(out_);
}

void ConsoleReporter::size_done(const RunRecord& r, std::size_t first_curve, std::size_t index,
                                const Progress& progress) {
  const Headline headline = r.options.headline;
  const Units units = r.options.units;
  const std::uint64_t bytes = r.schedule[index];
  std::vector<const SizeResult*> results;
  for (std::size_t c = first_curve; c < r.curves.size(); ++c) results.push_back(&r.curves[c].sizes.at(index));
  if (index == 0 && (!r.curves[first_curve].variant.empty() || r.pairing.one_at_a_time))
    std::fprintf(out_, "-- %s\n", curve_label(r.curves[first_curve]).c_str());
  const bool one_line = results.size() == 1 && (r.module.layout == Layout::pair || r.system.ranks.size() == 1);
  const std::string window = r.window_rule.empty() ? "" : window_text(*results.front());
  if (one_line) {
    const SizeResult& s = *results.front();
    std::fprintf(out_, "%-10s %10s %12s %12s %12s %12s %7s %6zu%s  %s\n", progress_text(progress).c_str(),
                 format_bytes(bytes).c_str(), format_seconds(headline_of(s.time, headline)).c_str(),
                 format_seconds(s.time.min).c_str(), format_seconds(s.time.max).c_str(),
                 format_throughput(s.throughput(headline_of(s.time, headline)), units).c_str(),
                 percent(s.precision).c_str(), s.trial_seconds.size(), window.c_str(), time_left(progress).c_str());
  } else {
    std::string line;
    double sum = 0, slowest = 0;
    std::size_t slowest_at = 0;
    for (std::size_t i = 0; i < results.size(); ++i) {
      const double throughput = results[i]->throughput(headline_of(results[i]->time, headline));
      sum += throughput;
      if (i == 0 || throughput < slowest) {
        slowest = throughput;
        slowest_at = i;
      }
      line += "  " + curve_label(r.curves[first_curve + i]) + " " + format_throughput(throughput, units);
    }
    if (results.size() > 1) line += "  sum " + format_throughput(sum, units);
    if (results.size() > 1 && r.module.layout == Layout::pair)
      line += "  slowest " + curve_label(r.curves[first_curve + slowest_at]);
    if (!window.empty()) line += "  window" + window;
    std::fprintf(out_, "%-10s %10s%s  %s\n", progress_text(progress).c_str(), format_bytes(bytes).c_str(),
                 line.c_str(), time_left(progress).c_str());
  }
  std::fflush(out_);
}

// Ranks that measured at the same time: the sum of their throughputs at each size. Variants (p2p's
// GPU pairs) are measured one after another, so they are never summed.
void ConsoleReporter::print_aggregate(const RunRecord& r) {
  if (r.module.layout != Layout::per_rank || r.system.ranks.size() < 2 || r.curves.size() < 2 ||
      r.options.concurrency != Concurrency::together || r.curves.size() != r.system.ranks.size())
    return;
  double best = 0;
  std::uint64_t best_bytes = 0;
  for (std::size_t i = 0; i < r.schedule.size(); ++i) {
    double sum = 0;
    for (const Curve& curve : r.curves)
      sum += curve.sizes[i].throughput(headline_of(curve.sizes[i].time, r.options.headline));
    if (sum > best) {
      best = sum;
      best_bytes = r.schedule[i];
    }
  }
  std::fprintf(out_, "  all ranks together: peak %s at %s\n", format_throughput(best, r.options.units).c_str(),
               format_bytes(best_bytes).c_str());
}

void ConsoleReporter::end(const RunRecord& r) {
  if (r.module.layout == Layout::pair && r.pairing.mode == PairingMode::all) {
    print_matrices(r);
    std::fflush(out_);
    return;
  }
  const Headline headline = r.options.headline;
  std::fprintf(out_, "\nSummary (%s over trials, pattern %s):\n", headline_name(headline), pattern_name(r.options.pattern));
  for (const Curve& curve : r.curves) {
    const CurveSummary s = summarize_curve(curve, headline);
    const std::string who = r.curves.size() > 1 ? "  " + curve_label(curve) + ": " : "  ";
    const char* first = s.latency_bytes <= 1024 ? "small-message latency" : "one-way time at the smallest size";
    std::fprintf(out_, "%s%s %s at %s; peak throughput %s at %s; half of peak from %s\n", who.c_str(), first,
                 format_seconds(s.latency_seconds).c_str(), format_bytes(s.latency_bytes).c_str(),
                 format_throughput(s.peak_throughput, r.options.units).c_str(), format_bytes(s.peak_bytes).c_str(),
                 format_bytes(s.half_peak_bytes).c_str());
    if (curve.link_peak.bytes_per_second > 0)
      std::fprintf(out_, "%s  that is %s of the link's theoretical %s (%s)\n", std::string(who.size() - 2, ' ').c_str(),
                   percent(s.peak_throughput / curve.link_peak.bytes_per_second).c_str(),
                   format_throughput(curve.link_peak.bytes_per_second, r.options.units).c_str(),
                   curve.link_peak.how.c_str());
  }
  print_aggregate(r);
  if (r.module.layout == Layout::pair && r.pairing.mode == PairingMode::halves) print_pairs_aggregate(r);
  if (const std::string long_reps = long_repetitions_text(r.curves, r.options.calibration.trial_seconds); !long_reps.empty())
    std::fprintf(out_, "  %s\n", long_reps.c_str());
  print_measured_again(r);
  std::fflush(out_);
}

// The sizes around the sweep's breaks measured again after it: every curve's, since the curves of
// one group measure the same sizes together but each group of a run (a variant, a rank alone) its own.
void ConsoleReporter::print_measured_again(const RunRecord& r) {
  const auto measured = std::find_if(r.curves.begin(), r.curves.end(), [](const Curve& c) { return !c.recheck_bytes.empty(); });
  if (measured == r.curves.end()) return;
  const std::set<std::uint64_t> first(measured->recheck_bytes.begin(), measured->recheck_bytes.end());
  std::set<std::uint64_t> sizes;
  for (const Curve& curve : r.curves) sizes.insert(curve.recheck_bytes.begin(), curve.recheck_bytes.end());
  std::string list;
  for (std::uint64_t bytes : sizes) list += (list.empty() ? "" : ", ") + format_bytes(bytes);
  std::fprintf(out_, "  measured again in turn after the sweep, around its breaks, the sizes its settings switch at and those "
               "slower than a larger size: "
               "%s, %zu trials each; npgpu report tells the breaks that repeated\n", list.c_str(), measured->recheck_bytes.size() / first.size());
}

// --pairs halves: what the fabric gave with every pair talking, and the pair that held it back.
void ConsoleReporter::print_pairs_aggregate(const RunRecord& r) {
  const PairsAggregate aggregate = aggregate_pairs(r.curves, r.options.headline);
  std::size_t best = 0;
  for (std::size_t i = 0; i < aggregate.sum.size(); ++i)
    if (aggregate.sum[i] > aggregate.sum[best]) best = i;
  std::fprintf(out_, "  all %zu pairs %s: peak %s at %s; the slowest pair there: rank %d at %s\n", r.curves.size(),
               r.pairing.one_at_a_time ? "one at a time, their sum" : "together",
               format_throughput(aggregate.sum[best], r.options.units).c_str(), format_bytes(aggregate.bytes[best]).c_str(),
               aggregate.slowest_rank[best], format_throughput(aggregate.slowest[best], r.options.units).c_str());
}

}  // namespace npgpu
