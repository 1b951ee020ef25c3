#pragma once
// The layers of one path: modules measured between the same ends (two ranks' hosts, or two GPUs by
// bus id), each against the module under it: what it adds in small-size time, what share of the
// bandwidth under it it keeps, and whether it falls far below. MPI over TCP against raw TCP sockets
// between the same two ranks; MPI with GPU buffers against cudaIpc between the same two GPUs. Pure
// functions: no I/O, no MPI.
#include <string>
#include <vector>

#include "npgpu/path_words.hpp"
#include "results/run_data.hpp"

namespace npgpu {

// A layer keeping less than this share of the bandwidth under it is far below it. A layer that works
// moves the same bytes over the same link with a protocol on top: MPI over TCP reaches raw TCP's
// rate here (3.8 against 3.7 GB/s), a CUDA-aware MPI 0.98 of cudaIpc on 2 x H200, NCCL 0.92; the
// same run's launches spread by x1.2 to 1.3 on this 2-core machine (whole runs between its virtual
// hosts up to x2.5: docs/ARCHITECTURE.md). The faults it is for are x10 and more: MPI staging GPU
// memory (2% of cudaIpc), a planted 4 KiB socket buffer (8% of tcp).
inline constexpr double kFarBelow = 0.5;

// The modules under `module` for messages in GPU memory or host memory, nearest first; none for a
// module at the bottom (tcp, p2p) or outside the table.
std::vector<std::string> layers_under(const std::string& module, bool gpu_memory);

// One layer's curve against the nearest layer under it measured between the same ends.
struct LayerStep {
  std::string upper_run, lower_run;  // "file:/runs/0002"
  std::string upper, lower;          // the modules: "mpi", "tcp"
  bool gpu_memory = false;
  std::string ends;     // "two ranks on vm", "alpha and beta", "GPUs 0000:18:00.0 and 0000:2a:00.0 on h"
  std::string pattern;  // both runs'
  // At the smallest size both measured, headline one-way times.
  double latency_bytes = 0, upper_latency_s = 0, lower_latency_s = 0;
  // Peaks over the sizes both measured, a size counted at most x1.25 over its faster neighbour
  // (one size timed in a quiet moment sets no bar): headline rates, and each size's fastest trial.
  double upper_peak_B_per_s = 0, lower_peak_B_per_s = 0;
  double share = 0;          // upper_peak / lower_peak
  double fastest_share = 0;  // the same from the fastest trials: what the upper layer can do at best
  // Both shares under kFarBelow: the trials' spread cannot explain the gap.
  bool far_below = false;
  std::string cause;  // far below: what the record says holds it there, and the remedy
};

// Every complete run that lies over another of `runs` between the same ends, each curve against the
// curve under it with the highest peak (of the nearest module measured); `words[i]` are runs[i]'s.
std::vector<LayerStep> layer_steps(const std::vector<RunData>& runs, const std::vector<PathWords>& words);

// "mpi over tcp, host memory between two ranks on vm (pingpong): adds 1.2 us at 1 B ...".
std::string describe_layer_step(const LayerStep& step);
// "mpi moves GPU memory at 2% of what cudaIpc moves between the same GPUs ...: far below ...: cause".
std::string describe_far_below(const LayerStep& step);

}  // namespace npgpu
