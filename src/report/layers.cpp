#include "report/layers.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <optional>
#include <set>
#include <vector>

#include "npgpu/sizes.hpp"
#include "report/report.hpp"

namespace npgpu {
namespace {

// Which module lies under which, nearest first. Host memory: MPI's point-to-point rides on UCX (pml
// ucx) or on its own TCP transport (btl tcp), one-sided MPI on the two-sided path or the same
// transports. GPU memory: cudaIpc is p2p's copy between processes, and NCCL and a CUDA-aware MPI move
// GPU memory between processes of a node by CUDA IPC. tcp and p2p lie at the bottom.
struct Layer {
  const char* module;
  bool gpu_memory;
  std::vector<const char*> under;
};
const Layer kLayers[] = {
    {"ucx", false, {"tcp"}},
    {"mpi", false, {"ucx", "tcp"}},
    {"mpiRma", false, {"mpi", "ucx", "tcp"}},
    {"cudaIpc", true, {"p2p"}},
    {"nccl", true, {"cudaIpc", "p2p"}},
    {"mpi", true, {"cudaIpc", "p2p"}},
    {"mpiRma", true, {"mpi", "cudaIpc", "p2p"}},
};

// The modules whose settings are the MPI's, which the record keeps as MCA parameters.
bool is_mpi(const std::string& module) { return module == "mpi" || module == "mpiRma"; }

std::string percent(double fraction) {
  char text[16];
  std::snprintf(text, sizeof text, fraction < 0.1 ? "%.1f%%" : "%.0f%%", fraction * 100);
  return text;
}

std::string rate(double bytes_per_second) { return format_throughput(bytes_per_second, Units::decimal); }

std::string name_of(const RunData& run) { return run.file + ":" + run.group; }

// A fact of one rank; rank 0's from the run's facts where it has no facts by rank.
std::string fact(const RunData& run, int rank, const char* name) {
  const auto r = static_cast<std::size_t>(rank);
  if (rank < 0 || (r >= run.rank_facts.size() && rank != 0)) return {};
  return fact_of(r < run.rank_facts.size() ? run.rank_facts[r] : run.facts, name);
}

// Whether a curve's messages were in GPU memory at both ends; nullopt where one end's were and the
// other's not (--buffers H,D), which is a layer of neither kind.
std::optional<bool> gpu_memory(const RunData& run, const CurveData& curve) {
  std::set<bool> on_gpu;
  for (int rank : {curve.rank, curve.peer}) {
    if (rank < 0) continue;
    const std::string messages = fact(run, rank, "messages");
    on_gpu.insert(messages.empty() ? !fact(run, rank, "gpu_pci_bus_id").empty() || !fact(run, rank, "gpus").empty()
                                   : messages == "GPU memory");
  }
  if (on_gpu.size() != 1) return std::nullopt;
  return *on_gpu.begin();
}

struct Ends {
  std::string key;    // the same two ends in either direction
  std::string words;  // how the report names them
};

Ends ends_between(const std::string& a, const std::string& b, const std::string& words) {
  return {std::min(a, b) + " | " + std::max(a, b), words};
}

// The bus id of GPU `index` in p2p's list of a rank's GPUs ("0: NAME, UUID, BUS, NUMA node 0; 1: ...").
std::string bus_in_list(const std::string& gpus, const std::string& index) {
  for (std::size_t at = 0; at < gpus.size();) {
    const std::size_t end = std::min(gpus.find("; ", at), gpus.size());
    const std::string entry = gpus.substr(at, end - at);
    const std::size_t last = entry.rfind(", "), before = entry.rfind(", ", last - 1);
    if (entry.rfind(index + ": ", 0) == 0 && last != std::string::npos && before != std::string::npos && before < last)
      return entry.substr(before + 2, last - before - 2);
    at = end + 2;
  }
  return {};
}

// The two ends of a curve: the two ranks' hosts for host memory; the two GPUs by bus id (and host)
// for GPU memory, a pair module's from its ranks' facts, p2p's from its curve's name
// ("rank0_gpu0_to_gpu1", bidir "rank0_gpu0_and_gpu1") and its rank's list of GPUs. nullopt where
// the record does not say.
std::optional<Ends> ends_of(const RunData& run, const CurveData& curve, bool on_gpu) {
  if (!on_gpu) {
    if (curve.peer < 0 || curve.peer_host.empty()) return std::nullopt;
    return ends_between(curve.host, curve.peer_host,
                        curve.host == curve.peer_host ? "two ranks on " + curve.host : curve.host + " and " + curve.peer_host);
  }
  std::string first, second;
  std::string first_host = curve.host, second_host = curve.peer_host;
  if (curve.peer >= 0) {
    first = fact(run, curve.rank, "gpu_pci_bus_id");
    second = fact(run, curve.peer, "gpu_pci_bus_id");
  } else {
    const std::size_t from = curve.name.find("_gpu");
    const std::string joint = curve.name.find("_and_gpu") != std::string::npos ? "_and_gpu" : "_to_gpu";
    const std::size_t to = curve.name.find(joint);
    if (from == std::string::npos || to == std::string::npos || to < from) return std::nullopt;
    const std::string gpus = fact(run, curve.rank, "gpus");
    first = bus_in_list(gpus, curve.name.substr(from + 4, to - from - 4));
    second = bus_in_list(gpus, curve.name.substr(to + joint.size()));
    second_host = curve.host;
  }
  if (first.empty() || second.empty()) return std::nullopt;
  const std::string words = first_host == second_host ? "GPUs " + first + " and " + second + " on " + first_host
                                                      : "GPU " + first + " on " + first_host + " and GPU " + second +
                                                            " on " + second_host;
  return ends_between(first_host + " " + first, second_host + " " + second, words);
}

double fastest_rate(const CurveData& curve, std::size_t i) {
  const double seconds = i < curve.seconds_min.size() ? curve.seconds_min[i] : curve.seconds[i];
  return curve.bytes_per_transfer[i] / seconds;
}

// The peak of `rates` (neighbouring sizes' in order), each size counted at most kLoneRise times its
// faster neighbour: on a busy machine one size's trials may all fall in a quiet moment (tcp's 512
// KiB at 1.18 GB/s between 514 and 586 MB/s, two virtual hosts here), and a rate no neighbour
// comes near is not what the path moves. A curve still rising at its top rises less per size:
// x1.15 over the last factor 4 of a 370 GB/s copy to 64 MiB.
constexpr double kLoneRise = 1.25;
double held_peak(const std::vector<double>& rates) {
  if (rates.size() == 1) return rates.front();  // no neighbour to hold it
  double peak = 0;
  for (std::size_t i = 0; i < rates.size(); ++i) {
    const double neighbour = std::max(i > 0 ? rates[i - 1] : 0, i + 1 < rates.size() ? rates[i + 1] : 0);
    peak = std::max(peak, std::min(rates[i], kLoneRise * neighbour));
  }
  return peak;
}

// The upper curve against the lower over the sizes both measured; nullopt where they share none.
std::optional<LayerStep> compare(const RunData& upper, const CurveData& up, const RunData& lower, const CurveData& down) {
  LayerStep step;
  std::vector<double> upper_rates, lower_rates, upper_fastest, lower_fastest;
  for (std::size_t i = 0; i < up.bytes.size(); ++i) {
    const auto at = std::find(down.bytes.begin(), down.bytes.end(), up.bytes[i]);
    if (at == down.bytes.end()) continue;
    const auto j = static_cast<std::size_t>(at - down.bytes.begin());
    if (upper_rates.empty()) {
      step.latency_bytes = up.bytes[i];
      step.upper_latency_s = up.seconds[i];
      step.lower_latency_s = down.seconds[j];
    }
    upper_rates.push_back(up.throughput(i));
    lower_rates.push_back(down.throughput(j));
    upper_fastest.push_back(fastest_rate(up, i));
    lower_fastest.push_back(fastest_rate(down, j));
  }
  step.upper_peak_B_per_s = held_peak(upper_rates);
  step.lower_peak_B_per_s = held_peak(lower_rates);
  const double lower_fastest_peak = held_peak(lower_fastest);
  if (upper_rates.empty() || step.lower_peak_B_per_s <= 0 || lower_fastest_peak <= 0) return std::nullopt;
  step.upper_run = name_of(upper);
  step.lower_run = name_of(lower);
  step.upper = upper.module;
  step.lower = lower.module;
  step.pattern = upper.pattern;
  step.share = step.upper_peak_B_per_s / step.lower_peak_B_per_s;
  step.fastest_share = held_peak(upper_fastest) / lower_fastest_peak;
  step.far_below = step.share < kFarBelow && step.fastest_share < kFarBelow;
  return step;
}

// The path's words, and for an MPI the settings the run was launched with: the record's MCA
// parameters (system/mpi_parameters), which is where a planted or forgotten setting shows.
std::string cause_of(const RunData& run, const PathWords& words) {
  std::string cause = words.below_layer.empty() ? "the record does not say what holds it there" : words.below_layer;
  if (!is_mpi(run.module)) return cause;
  if (run.mpi_parameters.empty()) return cause + "; no MCA parameter was set for this run";
  std::string settings;
  for (const std::string& setting : run.mpi_parameters) settings += (settings.empty() ? "" : ", ") + setting;
  return cause + "; this run was launched with the MCA parameters " + settings;
}

// "adds 1.22 us at 1 B (6.29 us against 5.07 us)"; a layer can also save time there.
std::string latency_words(const LayerStep& s) {
  const double added = s.upper_latency_s - s.lower_latency_s;
  return (added >= 0 ? "adds " : "saves ") + format_seconds(std::fabs(added)) + " at " +
         format_bytes(static_cast<std::uint64_t>(s.latency_bytes)) + " (" + format_seconds(s.upper_latency_s) +
         " against " + format_seconds(s.lower_latency_s) + ")";
}

// A run under load measures the load as much as its layer: it is no layer's figure.
bool comparable(const RunData& run) {
  return run.status == RunStatus::complete && !run.curves.empty() && run.load != "loaded";
}

// Whether an MPI run can ride on `under`: one launched with its pml named (--mca pml ob1, or a list
// that leaves UCX out) moves its messages on its own BTLs, TCP between hosts, never on UCX; the rest
// may ride on either.
bool may_ride_on(const RunData& run, const std::string& under) {
  if (!is_mpi(run.module) || under != "ucx") return true;
  for (const std::string& parameter : run.mpi_parameters) {
    if (parameter.rfind("pml=", 0) != 0) continue;
    const std::string pml = parameter.substr(4);
    const bool names_ucx = pml.find("ucx") != std::string::npos;
    return pml.rfind('^', 0) == 0 ? !names_ucx : names_ucx;
  }
  return true;
}

}  // namespace

std::vector<std::string> layers_under(const std::string& module, bool on_gpu) {
  for (const Layer& layer : kLayers)
    if (layer.module == module && layer.gpu_memory == on_gpu) return {layer.under.begin(), layer.under.end()};
  return {};
}

std::vector<LayerStep> layer_steps(const std::vector<RunData>& runs, const std::vector<PathWords>& words) {
  std::vector<LayerStep> steps;
  for (std::size_t u = 0; u < runs.size(); ++u) {
    if (!comparable(runs[u])) continue;
    for (const CurveData& up : runs[u].curves) {
      const std::optional<bool> on_gpu = gpu_memory(runs[u], up);
      const std::optional<Ends> ends = on_gpu ? ends_of(runs[u], up, *on_gpu) : std::nullopt;
      if (!ends) continue;
      for (const std::string& under : layers_under(runs[u].module, *on_gpu)) {
        if (!may_ride_on(runs[u], under)) continue;
        std::optional<LayerStep> best;
        for (const RunData& lower : runs) {
          // Pairs moving together share what they cross: only a run as crowded is the layer under them.
          if (!comparable(lower) || lower.module != under || lower.pattern != runs[u].pattern ||
              run_aspect(lower, "concurrency") != run_aspect(runs[u], "concurrency"))
            continue;
          for (const CurveData& down : lower.curves) {
            const std::optional<Ends> other = gpu_memory(lower, down) == on_gpu ? ends_of(lower, down, *on_gpu) : std::nullopt;
            if (!other || other->key != ends->key) continue;
            std::optional<LayerStep> step = compare(runs[u], up, lower, down);
            if (step && (!best || step->lower_peak_B_per_s > best->lower_peak_B_per_s)) best = step;
          }
        }
        if (!best) continue;
        best->gpu_memory = *on_gpu;
        best->ends = ends->words;
        if (best->far_below) best->cause = cause_of(runs[u], words.at(u));
        steps.push_back(*best);
        break;
      }
    }
  }
  return steps;
}

std::string describe_layer_step(const LayerStep& s) {
  return s.upper + " over " + s.lower + ", " + (s.gpu_memory ? "GPU memory" : "host memory") + " between " + s.ends + " (" +
         s.pattern + "): " + latency_words(s) + "; keeps " + percent(s.share) + " of " + s.lower + "'s peak (" +
         rate(s.upper_peak_B_per_s) + " against " + rate(s.lower_peak_B_per_s) + ")" + (s.far_below ? ": far below it" : "");
}

std::string describe_far_below(const LayerStep& s) {
  const std::string ends = s.gpu_memory ? "the same GPUs (" + s.ends + ")" : "the same ranks (" + s.ends + ")";
  return s.upper + " moves " + (s.gpu_memory ? "GPU memory" : "host memory") + " at " + percent(s.share) + " of what " +
         s.lower + " moves between " + ends + ", " + rate(s.upper_peak_B_per_s) + " against " +
         rate(s.lower_peak_B_per_s) + " (" + s.pattern + " peaks over the sizes both measured; their fastest trials " +
         percent(s.fastest_share) + "), far below the layer under it: " + s.cause + ". At its smallest size it " +
         latency_words(s);
}

}  // namespace npgpu
