#pragma once
// A run under load (--load): some ranks make traffic while the others, the victims, measure as
// --pairs says among themselves, first alone and then with the load running. Pure functions of the
// options and the rank count, as the pairing's are, so every rank agrees without talking.
#include <cstdint>
#include <string>
#include <vector>

#include "npgpu/pairing.hpp"
#include "npgpu/pattern.hpp"

namespace npgpu {

// What the load ranks do: stream and bidir pair them up as --pairs halves does over their list (the
// first half with the second); incast sends from every load rank to the first; alltoall from every
// load rank to every other.
enum class LoadPattern { stream, bidir, incast, alltoall };

struct LoadPlan {
  LoadPattern pattern = LoadPattern::stream;
  std::vector<int> ranks;        // the load ranks, increasing
  std::uint64_t bytes = 0;       // each load message
  std::string module;            // the module that moves the load; empty: the measured one
  int run_ranks = 0;             // of the whole run, load and victims
  // The load module moves within each rank (memcpy, cudaMemcpy, p2p: Layout::per_rank): every load
  // rank streams on its own path, with no partner.
  bool own_paths = false;
};

// Each load message when --load-size is not given: 4 MiB, where TCP, shared memory and a GPU's
// host link stream at their plateau here, so that the load fills what it crosses.
inline constexpr std::uint64_t kDefaultLoadBytes = 4ull << 20;

// What the load moved while it ran: bytes over every load pair, and the seconds from its first
// window after the warm-up to its last.
struct LoadResult {
  double bytes = 0;
  double seconds = 0;
  std::vector<std::string> gpus;  // each load rank's GPU (PCI bus id), as --load-ranks lists them; "" for none
  double window = 0;              // messages a window after the first cycle
};

// Where every rank of the whole run ran, by rank: what the load shares with each victim.
struct RankWhereabouts {
  std::vector<std::string> hosts;
  // The kernel's boot id: virtual hosts (network namespaces, containers) of one machine share it,
  // and its cores, whatever their host names.
  std::vector<std::string> machines;
  std::string oversubscribed;  // "8 ranks on 2 cores of one machine"; "" where no machine's ranks outnumber its cores
};

// A run under load as its record keeps it: the load, which of the victims' two runs this is, and
// for the loaded one what the load moved meanwhile.
struct LoadFacts {
  LoadPlan plan;
  bool loaded = false;
  LoadResult moved;
  RankWhereabouts where;
};

// "stream", "bidir", "incast", "alltoall"; UsageError naming the allowed ones.
LoadPattern parse_load_pattern(const std::string& text);
const char* load_pattern_name(LoadPattern pattern);

// --load-ranks: ranks and ranges, "0,1,4,5" or "4-7" or "0,2-3", of a run of `ranks` ranks; each
// once, increasing. UsageError naming what is wrong and what is allowed.
std::vector<int> parse_rank_list(const std::string& text, int ranks);

// Ranks as the record and the messages list them: "1,3" with separator ",".
std::string joined_ranks(const std::vector<int>& ranks, const std::string& separator);

// The ranks that are not load ranks, in rank order: the victims.
std::vector<int> victims_of(const LoadPlan& load);

// Checks the load against the run: at least two victims, an even number of load ranks for stream and
// bidir, at least two for the others; own paths: stream or bidir, one load rank or more. UsageError
// naming what is wrong and what is allowed.
void check_load(const LoadPlan& load);

// --pairs A:B names ranks of the whole run; the victims measure among themselves, numbered in their
// own order. Returns the pair in the victims' numbers ("0:1" for --pairs 0:1 with load ranks 2,3);
// any other --pairs unchanged. UsageError where A or B makes load or does not exist.
std::string victims_pairs(const std::string& pairs, const LoadPlan& load);

// The load module's one peer at a time, over a cycle of rounds: each load pair moves one window in
// its round, and the load ranks agree after each cycle whether to go on. Peers are numbered among
// the load ranks (their place in LoadPlan::ranks), as the load's own communicator numbers them.
//   stream, bidir: one round, the first half of the load ranks with the second (--pairs halves).
//   alltoall: a round-robin tournament, every pair once a cycle, each moving bidir (both ways), as
//     a pairwise all-to-all exchanges; with an odd count one rank sits each round out. A barrier
//     between rounds: a transport that writes into its peer's memory (cudaIpc, mpiRma) must not meet
//     the next round's writer there.
//   incast: one round, every other load rank streaming to the first, which receives a window from
//     each at once (Peers::more_from): many senders into one receiver, as a checkpoint's writers.
//   own paths: one round, in which every load rank moves a window on its own (`alone`).
struct LoadCycle {
  Pattern pattern = Pattern::stream;
  std::vector<std::vector<Peers>> rounds;
  bool barrier_between_rounds = false;
  bool alone = false;
};
LoadCycle load_cycle(const LoadPlan& load);

// The pattern each load pair moves: bidir for bidir and alltoall, stream for stream and incast.
Pattern pair_pattern(LoadPattern pattern);

// Pair windows a cycle moves: the load's bytes are this x one window of the cycle's pattern.
int windows_per_cycle(const LoadCycle& cycle);

// How the load module is set up over the load ranks: halves for stream and bidir (and own paths,
// which ignore it); all (every load rank connects to every other) for incast and alltoall.
RankPairing load_pairing(const LoadPlan& load);

}  // namespace npgpu
