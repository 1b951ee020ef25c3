#include "npgpu/module.hpp"

#include <algorithm>

#include "npgpu/module_options.hpp"

namespace npgpu {

TransferShape Module::shape(Pattern pattern, std::uint64_t bytes, std::uint64_t window) const {
  const auto n = static_cast<double>(bytes);
  switch (pattern) {
    case Pattern::pingpong: return {2, n};
    case Pattern::stream: return {static_cast<double>(window), n};
    case Pattern::bidir: return {static_cast<double>(window), 2 * n};
  }
  return {1, n};
}

std::string Module::throughput_meaning(Pattern pattern) const {
  switch (pattern) {
    case Pattern::pingpong: return "message bytes / one-way time (half the round trip)";
    case Pattern::stream: return "message bytes / (window time / messages in the window), one direction";
    case Pattern::bidir: return "bytes of both directions together / time per message pair";
  }
  return {};
}

RepetitionWords Module::repetition_words(Pattern pattern) const {
  switch (pattern) {
    case Pattern::pingpong: return {"round trips", "one way = half a round trip"};
    case Pattern::stream: return {"windows of messages, each closed by the receiver's ack", "one message"};
    case Pattern::bidir: return {"windows sent both ways at once", "one message each way"};
  }
  return {};
}

const char* pattern_name(Pattern pattern) {
  switch (pattern) {
    case Pattern::pingpong: return "pingpong";
    case Pattern::stream: return "stream";
    case Pattern::bidir: return "bidir";
  }
  return "?";
}

std::optional<Pattern> pattern_named(std::string_view name) {
  for (Pattern pattern : {Pattern::pingpong, Pattern::stream, Pattern::bidir})
    if (name == pattern_name(pattern)) return pattern;
  return std::nullopt;
}

bool ModuleOptions::given(std::string_view option) const {
  return std::find(given_options.begin(), given_options.end(), option) != given_options.end();
}

}  // namespace npgpu
