#pragma once
// How a run moves its messages, and whether they come from memory or from a warm cache.
#include <optional>
#include <string_view>

namespace npgpu {

enum class Pattern { pingpong, stream, bidir };
const char* pattern_name(Pattern pattern);
// The pattern of that name (a record's), if this npgpu knows it.
std::optional<Pattern> pattern_named(std::string_view name);

enum class CacheState { cold, warm };

}  // namespace npgpu
