#include "npgpu/fault.hpp"

#include <string>

#include "npgpu/errors.hpp"
#include "npgpu/sizes.hpp"

namespace npgpu {

ByteFlip parse_byte_flip(const std::string& text) {
  const std::size_t at = text.find('@');
  const std::string offset = text.substr(0, at);
  if (offset.empty() || offset.find_first_not_of("0123456789") != std::string::npos)
    throw UsageError("--test-flip-byte " + text + ": expected OFFSET or OFFSET@SIZE, OFFSET a byte index");
  ByteFlip flip{std::stoull(offset), 0};
  if (at != std::string::npos) flip.min_bytes = parse_size(text.substr(at + 1), "--test-flip-byte");
  return flip;
}

void flip_host_byte(std::byte* message, std::uint64_t offset) { message[offset] ^= std::byte{0xFF}; }

}  // namespace npgpu
