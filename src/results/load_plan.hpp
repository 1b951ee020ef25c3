#pragma once
// A run under load (--load): some ranks make traffic while the others, the victims, measure as
// --pairs says among themselves, first alone and then with the load running. Pure functions of the
// options and the rank count, as the pairing's are, so every rank agrees without talking.
#include <cstdint>
#include <string>
#include <vector>

#include "npgpu/pairing.hpp"

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
};

// Each load message when --load-size is not given: 4 MiB, where TCP, shared memory and a GPU's
// host link stream at their plateau here, so that the load fills what it crosses.
inline constexpr std::uint64_t kDefaultLoadBytes = 4ull << 20;

// What the load moved while it ran: bytes over every load pair, and the seconds from its first
// window after the warm-up to its last.
struct LoadResult {
  double bytes = 0;
  double seconds = 0;
};

// A run under load as its record keeps it: the load, which of the victims' two runs this is, and
// for the loaded one what the load moved meanwhile.
struct LoadFacts {
  LoadPlan plan;
  bool loaded = false;
  LoadResult moved;
  std::vector<std::string> hosts;  // every rank's host, by rank of the whole run: what the load shares
};

// "stream", "bidir", "incast", "alltoall"; UsageError naming the allowed ones.
LoadPattern parse_load_pattern(const std::string& text);
const char* load_pattern_name(LoadPattern pattern);

// --load-ranks: ranks and ranges, "0,1,4,5" or "4-7" or "0,2-3", of a run of `ranks` ranks; each
// once, increasing. UsageError naming what is wrong and what is allowed.
std::vector<int> parse_rank_list(const std::string& text, int ranks);

// The ranks that are not load ranks, in rank order: the victims.
std::vector<int> victims_of(const LoadPlan& load, int ranks);

// Checks the load against the run: at least two victims, an even number of load ranks for stream and
// bidir, at least two for the others. UsageError naming what is wrong and what is allowed.
void check_load(const LoadPlan& load, int ranks);

// --pairs A:B names ranks of the whole run; the victims measure among themselves, numbered in their
// own order. Returns the pair in the victims' numbers ("0:1" for --pairs 0:1 with load ranks 2,3);
// any other --pairs unchanged. UsageError where A or B makes load or does not exist.
std::string victims_pairs(const std::string& pairs, const LoadPlan& load, int ranks);

// stream and bidir: whom each load rank streams to and answers (by world rank; the others idle).
std::vector<Peers> load_pairs(const LoadPlan& load, int ranks);

}  // namespace npgpu
