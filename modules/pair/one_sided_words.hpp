#pragma once
// What the record and the console say of the one-sided patterns (one_sided_patterns.hpp): how a
// repetition divides into transfers, and the words for a repetition, a transfer, the throughput,
// how a rank sees what a peer wrote and the cheap check every message gets.
#include <cstdint>
#include <string>

#include "npgpu/module.hpp"
#include "pair/one_sided_transport.hpp"

namespace npgpu {

struct OneSidedWords {
  OneSidedOperation operation;
  OneSidedSync sync;
  bool tagged;  // host memory: messages carry tags and are polled where they land

  // For Module::shape, throughput_meaning and repetition_words.
  TransferShape shape(Pattern pattern, std::uint64_t bytes, std::uint64_t window) const;
  std::string throughput_meaning(Pattern pattern) const;
  std::string repetition(Pattern pattern) const;    // what a trial times, e.g. "gets, each completed by a flush"
  std::string one_transfer(Pattern pattern) const;  // e.g. "one way = half a round trip"
  std::string arrival() const;                      // how a rank sees what a peer wrote
  std::string message_check() const;                // the cheap check every message gets
};

}  // namespace npgpu
