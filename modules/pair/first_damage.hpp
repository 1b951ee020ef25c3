#pragma once
// The first corrupt message of a trial or a check, for the pair patterns (two-sided and one-sided).
// A peer may still be moving bytes when a message is found corrupt: the exchange goes on to its end
// (the driver then fails the run on every rank), and the first corrupt message is what is said.
#include <cstdint>
#include <optional>
#include <string>
#include <utility>

#include "npgpu/fault.hpp"
#include "pair/transport.hpp"

namespace npgpu {

class FirstDamage {
 public:
  explicit FirstDamage(std::string module) : module_(std::move(module)) {}

  bool noted() const { return what_.has_value(); }

  // Byte `bad` of `in` was found changed by `found_by` (a tag, --check); kept only if it is the first.
  void note(const Message& in, std::uint64_t bad, const std::string& found_by) {
    if (what_) return;
    what_ = module_ + ": byte " + std::to_string(bad) + " of a " + std::to_string(in.bytes) + "-byte message from rank " +
            std::to_string(in.peer) + " arrived changed (" + found_by + ")";
  }

  // Once the exchanges are over: a DataError naming the first corrupt message, if there was one.
  void throw_if_noted() {
    if (!what_) return;
    const std::string what = *what_;
    what_.reset();
    throw DataError(what);
  }

 private:
  std::string module_;
  std::optional<std::string> what_;
};

}  // namespace npgpu
