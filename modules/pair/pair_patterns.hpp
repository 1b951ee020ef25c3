#pragma once
// pingpong, stream and bidir between two ranks over any transport, and the full data check:
// NetPIPE's and OSU's patterns, written once for the pair modules.
#include <string>

#include "npgpu/module.hpp"
#include "pair/transport.hpp"

namespace npgpu {

// Tags (the cheap check on every message) are stamped and read in host memory only: touching a
// byte of GPU memory is a device round trip, longer than the small messages being timed. So a
// message that starts or ends in GPU memory carries none, and --check is what covers it.
class PairPatterns {
 public:
  PairPatterns(std::string module, int rank, std::uint64_t window, MessageMemory& memory, bool peer_on_device,
               Transport& transport);

  TrialTiming run(const TrialSpec& trial);

  // Rank 0 sends a pattern, rank 1 checks every byte and answers with another, which rank 0 checks.
  void check(std::uint64_t bytes, std::uint64_t seed);

 private:
  void pingpong(std::uint64_t n);
  void stream(std::uint64_t n);
  void bidir(std::uint64_t n);

  Message outgoing(std::uint64_t n, std::uint64_t slot) const;
  Message incoming(std::uint64_t n, std::uint64_t slot) const;
  void stamp_tag(const Message& out) const;
  void expect_tag(const Message& in, bool stamped_by_host) const;

  std::string module_;
  int rank_;
  std::uint64_t window_;
  MessageMemory& memory_;
  bool mine_on_host_;
  bool peer_on_host_;
  Transport& transport_;
  std::uint64_t counter_ = 0;
};

}  // namespace npgpu
