#pragma once
// p2p before any GPU is touched: which GPU pairs, and the copies each pattern makes between them.
// No CUDA here.
#include <memory>
#include <string>
#include <vector>

#include "cuda_common/copy_legs.hpp"
#include "npgpu/module_options.hpp"
#include "npgpu/run_view.hpp"

namespace npgpu {

struct GpuPair {
  int source = 0;
  int destination = 1;
  bool operator==(const GpuPair&) const = default;
};

// --pairs: "all", or "SRC:DST" (empty: 0:1).
struct PairSelection {
  bool all = false;
  GpuPair pair;
};
PairSelection parse_pairs(const std::string& text);  // UsageError, one line, when malformed

// The pairs to measure on a node with `gpus` GPUs. "all": every ordered pair, or every unordered
// pair for bidir, which runs both directions at once. UsageError when a GPU is not there.
std::vector<GpuPair> expand_pairs(const PairSelection& selection, int gpus, Pattern pattern);

// A curve's name part: "gpu0_to_gpu1", or "gpu0_and_gpu1" for bidir.
std::string pair_variant(const GpuPair& pair, Pattern pattern);

// The four ends of a pair's copies: what each GPU sends from and receives into. Streams: 0 is the
// source GPU's, 1 the destination GPU's.
enum PairEnd : std::size_t { kSourceSends, kDestinationReceives, kDestinationSends, kSourceReceives, kPairEnds };
inline constexpr std::size_t kSourceStream = 0, kDestinationStream = 1;

// write: the GPU that holds the data pushes it (its engine or kernel); read: the receiving GPU pulls.
// stream: source -> destination; bidir: both ways at once; pingpong: there and back, chained.
CopyLegs pair_legs(Pattern pattern, bool write);

// p2p's own options; resolve() checks the form of --pairs before any GPU is touched.
struct P2pOptions : ModuleOptions {
  std::optional<Pattern> resolve(const RunView& run) override;

  std::string copy = "ce";       // ce (copy engine) or sm (a copy kernel)
  std::string pairs;             // GPU pairs: "all" or "SRC:DST"; default 0:1
  std::string access = "write";  // write (the source pushes) or read (the destination pulls)
};

// p2p's option group (the catalog's DeclareOptions).
std::shared_ptr<ModuleOptions> declare_p2p_options(CLI::App& group);

}  // namespace npgpu
