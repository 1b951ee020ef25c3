#pragma once
// The contract between the driver and a transport module (NetPIPE's idea: the driver alone knows
// about sizes, repetitions and statistics; a module only moves bytes in the pattern it is asked for).
#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "npgpu/clock.hpp"
#include "npgpu/pairing.hpp"
#include "npgpu/run_view.hpp"
#include "npgpu/team.hpp"

namespace npgpu {

// Who measures. `pair`: ranks exchange bytes in pairs the driver chooses (--pairs) and the first
// rank of each pair times. `per_rank`: every rank measures its own path (its memory, its GPU) and
// times itself.
enum class Layout { pair, per_rank };

struct ModuleSetup {
  const Team& team;
  const RunView& run;
  std::uint64_t max_bytes;
  const RankPairing& pairing;  // pair modules: which ranks pair up, and this rank's side
};

struct TrialSpec {
  Pattern pattern;
  std::uint64_t bytes;
  std::uint64_t reps;
  std::uint64_t window;  // stream and bidir: messages in each repetition's window (the driver's choice)
  const Clock& clock;
};

// One trial's time for all of its repetitions, in seconds, from the module's timer; a module
// with a second honest timer (cudaEvents beside the host clock) fills `alt_seconds` too.
struct TrialTiming {
  double seconds = 0;
  double alt_seconds = std::numeric_limits<double>::quiet_NaN();
};

// How a repetition of a pattern divides into transfers: the driver reports time per transfer and
// throughput = bytes_per_transfer / time per transfer.
struct TransferShape {
  double transfers_per_rep;
  double bytes_per_transfer;
};

// What run() times in one repetition of a pattern, and what one transfer of it is, in the words the
// record keeps (@timing): "round trips" and "one way = half a round trip" for a two-sided pingpong.
struct RepetitionWords {
  std::string timed;
  std::string one_transfer;
};

// The theoretical peak of the link a run exercises, and how it was computed
// ("PCIe Gen5 x16: 32 GT/s x 16 lanes x 128/130 / 8").
struct LinkPeak {
  double bytes_per_second = 0;  // 0: unknown
  std::string how;
};

class Module {
 public:
  virtual ~Module() = default;

  // Once, before any timing: checks the combination of options (UsageError), allocates and
  // touches buffers for messages up to max_bytes. Called on every rank.
  virtual void setup(const ModuleSetup& setup) = 0;

  // Moves `reps` repetitions of the pattern, cheap tag checked on every message. Called on every
  // rank that takes part; must not print, and must not decide repetitions.
  virtual TrialTiming run(const TrialSpec& trial) = 0;

  // Outside any timed region: moves one message of `bytes` filled from `seed` and checks every byte
  // that arrived (--check). Throws RunError on a mismatch.
  virtual void check(std::uint64_t bytes, std::uint64_t seed) = 0;

  // Pingpong: 2 one-way transfers of n bytes; stream: a window of n-byte messages; bidir: a window
  // of n-byte messages each way at once, counted as 2n bytes per transfer.
  virtual TransferShape shape(Pattern pattern, std::uint64_t bytes, std::uint64_t window) const;

  // Host memory this module will allocate on each rank for messages up to max_bytes, so an
  // impossible size is refused before allocating.
  virtual std::uint64_t host_bytes_needed(const RunView& run, std::uint64_t max_bytes) const = 0;

  // What run()'s seconds are timed with, when not the host clock it was handed (cudaEvents).
  virtual std::string primary_timer_name() const { return {}; }

  // Name of the second timer, when run() fills alt_seconds.
  virtual std::string alt_timer_name() const { return {}; }

  // The cheap check every message gets, in words; "" when messages carry none (GPU memory).
  virtual std::string message_check() const { return "a tag in the first and last byte of every message"; }

  // What one transfer counts, said in the record (e.g. a local copy reads and writes its size).
  virtual std::string throughput_meaning(Pattern pattern) const;

  // Pair modules: what a repetition of the pattern is, for the record; shape() counts its transfers
  // alike (a one-sided get's pingpong is one get, not a round trip of two messages).
  virtual RepetitionWords repetition_words(Pattern pattern) const;

  // Facts about where this rank measures (GPU, NUMA node, cores, library versions), as
  // name, value pairs: recorded per rank and shown in the console's header. After setup.
  virtual std::vector<std::pair<std::string, std::string>> placement() const { return {}; }

  // Separate curves that one rank measures in turn (p2p's GPU pairs): names usable in an HDF5
  // group name. select_variant(i) is called on every rank before variant i's sweep.
  virtual std::vector<std::string> variants() const { return {""}; }
  virtual void select_variant(std::size_t) {}

  // The peak of the link the selected variant exercises, on this rank.
  virtual LinkPeak link_peak() const { return {}; }

  // From another thread, when a wait passed its bound and the process is about to exit: a module
  // whose library can abort its own waits (NCCL) does so, so the GPU is left in a clean state.
  virtual void abort_waits() {}

  // Pair modules: the peers of the next step, called on every rank before the step's first
  // transfer and outside any timing, so connections and mappings a peer needs are made here.
  virtual void select_peers(const Peers&) {}
};

}  // namespace npgpu
