#pragma once
// Which ranks of a pair module measure together (--pairs): one pair, N/2 pairs at once, or every
// ordered pair on mpiGraph's shift schedule. Pure functions of the options and the rank count, so
// every rank computes the same steps without talking to the others.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "npgpu/pattern.hpp"

namespace npgpu {

// Whom a pair module's rank talks to in one step of the pairing. It starts each exchange with `to`
// (sends the ping, the window, its half of bidir) and times it; it answers `from` (echoes the ping,
// acknowledges the window, sends the other half of bidir). -1: no such peer. In a pair the first
// rank has only `to`, the second only `from`, and so has each rank in a step of --pairs all.
struct Peers {
  int to = -1;
  int from = -1;
  // A load's incast only: more senders whose stream windows arrive with `from`'s, at once.
  std::vector<int> more_from;
  bool idle() const { return to < 0 && from < 0; }
  // `from`, then `more_from`: every rank whose windows this rank receives.
  std::vector<int> senders() const {
    std::vector<int> all;
    if (from >= 0) all.push_back(from);
    all.insert(all.end(), more_from.begin(), more_from.end());
    return all;
  }
};

enum class PairingMode { one_pair, halves, all };

struct RankPairing {
  PairingMode mode = PairingMode::one_pair;
  int first = 0;              // one_pair: A of A:B, the rank that times
  int second = 1;             // one_pair: B
  int ranks = 2;
  std::uint64_t sample = 0;   // all: partners each rank sees, 0 = every other rank
  std::uint64_t seed = 0;     // all with sample: what the partners were drawn with
  bool one_at_a_time = false; // halves with --concurrency alone: each pair alone, in turn
};

// A rank as a command line names it: a whole number, 0 or more; nullopt for anything else.
std::optional<int> rank_number(const std::string& text);

// "A:B", "halves" or "all" for a run of `ranks` ranks, with --sample K (0: none) and its seed.
// UsageError naming what is wrong and what is allowed.
RankPairing parse_rank_pairing(const std::string& text, int ranks, std::uint64_t sample, std::uint64_t seed);

// "0:1", "halves", "all", or "all, sampled 3 of 7 partners (seed 42)".
std::string describe(const RankPairing& pairing);

// Which of --buffers X,Y a rank's messages use: X on the first rank of a pair (it times), Y on the
// second; in the all-pairs shift every rank is both, so X and Y must agree.
enum class PairSide { first, second, both, idle };
PairSide side_of(const RankPairing& pairing, int rank);

// The ranks that measure at the same time, and whom each talks to.
struct PairStep {
  int shift = 0;             // all: every rank sends to rank + shift (mod N); otherwise 0
  std::vector<Peers> peers;  // by rank; idle ranks have neither peer
  std::vector<int> timers;   // ranks whose timings are kept, in rank order
};

// one_pair and halves: one step. all: for each shift, 1..N-1 in order or `sample` shifts drawn
// with `seed` (every rank then sees the same number of partners), two steps (three where the
// shift's cycles are odd) in which every other rank of each cycle sends to rank + shift: no rank
// sends and receives at once, so a slow link delays only its own cell, never the cycle it is on.
std::vector<PairStep> pairing_steps(const RankPairing& pairing);

// Every rank `rank` exchanges messages with in some step, in rank order: the connections and
// mappings a module makes before the first step.
std::vector<int> partners(const RankPairing& pairing, int rank);

// The pattern an all-pairs matrix at `bytes` is measured with when --pattern is not given:
// pingpong (a latency matrix) below 64 KiB, stream (a send-throughput matrix) from 64 KiB.
Pattern all_pairs_pattern(std::uint64_t bytes);

}  // namespace npgpu
