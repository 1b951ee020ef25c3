#pragma once
// The test-only fault switch modules obey. --test-flip-byte OFFSET[@SIZE], hidden from --help: one
// byte of every message of at least SIZE bytes is flipped where it arrives, before any check reads
// it, so the tests can prove that the per-message tag and --check catch corruption and fail the run.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include "npgpu/errors.hpp"

namespace npgpu {

struct ByteFlip {
  std::uint64_t offset = 0;     // clamped to the message's last byte
  std::uint64_t min_bytes = 0;  // smaller messages arrive intact, so a run has sizes before the fault
};

// "OFFSET" or "OFFSET@SIZE"; UsageError otherwise.
ByteFlip parse_byte_flip(const std::string& text);

// The byte to flip in an arrived message of `bytes`, if the switch is on and the message is large
// enough. Inline: the patterns ask on every repetition, and the switch is off but in tests.
inline std::optional<std::uint64_t> byte_to_flip(const std::optional<ByteFlip>& flip, std::uint64_t bytes) {
  if (!flip || bytes == 0 || bytes < flip->min_bytes) return std::nullopt;
  return std::min(flip->offset, bytes - 1);
}

void flip_host_byte(std::byte* message, std::uint64_t offset);

// A corrupt transfer, found by a tag or --check. It is thrown once the transfer's exchange is over,
// so no peer is left waiting; the driver then fails the run on every rank together.
struct DataError : RunError {
  using RunError::RunError;
};

}  // namespace npgpu
