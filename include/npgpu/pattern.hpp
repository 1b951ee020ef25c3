#pragma once
// How a run moves its messages, and whether they come from memory or from a warm cache.
namespace npgpu {

enum class Pattern { pingpong, stream, bidir };
const char* pattern_name(Pattern pattern);

enum class CacheState { cold, warm };

}  // namespace npgpu
