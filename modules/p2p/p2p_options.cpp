#include "p2p_options.hpp"

#include <cctype>

#include "cuda_common/gpu_options.hpp"
#include "npgpu/errors.hpp"

namespace npgpu {
namespace {

bool whole_number(const std::string& text) {
  if (text.empty() || text.size() > 4) return false;
  for (char c : text)
    if (!std::isdigit(static_cast<unsigned char>(c))) return false;
  return true;
}

std::string gpus_text(int gpus) { return std::to_string(gpus) + (gpus == 1 ? " GPU" : " GPUs"); }

}  // namespace

PairSelection parse_pairs(const std::string& text) {
  PairSelection selection;
  if (text.empty()) return selection;
  if (text == "all") {
    selection.all = true;
    return selection;
  }
  const auto colon = text.find(':');
  const std::string source = text.substr(0, colon);
  const std::string destination = colon == std::string::npos ? "" : text.substr(colon + 1);
  if (!whole_number(source) || !whole_number(destination))
    throw UsageError("--pairs '" + text + "': write SRC:DST with two GPU indices (e.g. 0:1), or all");
  selection.pair = {std::stoi(source), std::stoi(destination)};
  if (selection.pair.source == selection.pair.destination)
    throw UsageError("--pairs '" + text + "': a GPU is not its own peer; give two different GPUs (e.g. 0:1)");
  return selection;
}

std::vector<GpuPair> expand_pairs(const PairSelection& selection, int gpus, Pattern pattern) {
  if (gpus < 2)
    throw UsageError("module p2p copies between two GPUs, and this node has " + gpus_text(gpus));
  if (!selection.all) {
    const GpuPair& pair = selection.pair;
    if (pair.source >= gpus || pair.destination >= gpus)
      throw UsageError("--pairs " + std::to_string(pair.source) + ":" + std::to_string(pair.destination) +
                       ": this node has " + gpus_text(gpus) + " (0 to " + std::to_string(gpus - 1) + ")");
    return {pair};
  }
  std::vector<GpuPair> pairs;
  for (int source = 0; source < gpus; ++source)
    for (int destination = 0; destination < gpus; ++destination)
      if (destination != source && (pattern != Pattern::bidir || source < destination))
        pairs.push_back({source, destination});
  return pairs;
}

std::string pair_variant(const GpuPair& pair, Pattern pattern) {
  return "gpu" + std::to_string(pair.source) + (pattern == Pattern::bidir ? "_and_gpu" : "_to_gpu") +
         std::to_string(pair.destination);
}

CopyLegs pair_legs(Pattern pattern, bool write) {
  // The GPU that does the work: the one holding the data when writing, the one receiving it when reading.
  const std::size_t there = write ? kSourceStream : kDestinationStream;
  const std::size_t back = write ? kDestinationStream : kSourceStream;
  switch (pattern) {
    case Pattern::stream: return {{{kSourceSends, kDestinationReceives, there}}, false};
    case Pattern::bidir:
      return {{{kSourceSends, kDestinationReceives, there}, {kDestinationSends, kSourceReceives, back}}, false};
    case Pattern::pingpong:
      return {{{kSourceSends, kDestinationReceives, there}, {kDestinationReceives, kSourceReceives, back}}, true};
  }
  return {};
}

std::optional<Pattern> P2pOptions::resolve(const RunView&) {
  parse_pairs(pairs);
  return std::nullopt;
}

std::shared_ptr<ModuleOptions> declare_p2p_options(CLI::App& group) {
  auto options = std::make_shared<P2pOptions>();
  declare_copy(group, options->copy);
  group.add_option("--pairs", options->pairs, "GPU pair as SRC:DST (default 0:1), or all for every pair");
  group.add_option("--p2p", options->access, "write (the source GPU pushes) or read (the destination GPU pulls)")
      ->check(CLI::IsMember({"write", "read"}));
  return options;
}

}  // namespace npgpu
