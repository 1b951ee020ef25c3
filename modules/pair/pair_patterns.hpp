#pragma once
// pingpong, stream and bidir between ranks over any transport, and the full data check: NetPIPE's
// and OSU's patterns, written once for the pair modules. A rank starts each exchange with its `to`
// peer and answers its `from` peer (npgpu::Peers): in every step, a pair's or a phase of the
// all-pairs shift's (pairing_steps), a rank has one of the two roles.
#include <optional>
#include <string>

#include "npgpu/fault.hpp"
#include "npgpu/module.hpp"
#include "pair/first_damage.hpp"
#include "pair/transport.hpp"

namespace npgpu {

// Tags (the cheap check on every message) are stamped and read in host memory only: touching a
// byte of GPU memory is a device round trip, longer than the small messages being timed. So a
// message that starts or ends in GPU memory carries none, and --check is what covers it.
class PairPatterns {
 public:
  // `peer_on_device`: the other side's messages are GPU memory (--buffers), so it stamps no tags.
  PairPatterns(std::string module, const RunView& options, MessageMemory& memory, bool peer_on_device,
               Transport& transport);

  // A new pairing counts its repetitions (the tags) from zero on both sides: what a rank ran
  // before depends on its earlier pairs, which measured one at a time may have run apart.
  void select_peers(const Peers& peers) {
    peers_ = peers;
    counter_ = 0;
  }
  const Peers& peers() const { return peers_; }

  // A corrupt message is a DataError, thrown once the trial's exchanges are over.
  TrialTiming run(const TrialSpec& trial);

  // A pattern goes to `to` while one comes from `from`, whose every byte is checked; then answers
  // go the other way and are checked too. A DataError once both legs are over.
  void check(std::uint64_t bytes, std::uint64_t seed);

 private:
  void pingpong(std::uint64_t n);
  void stream(std::uint64_t n);
  void bidir(std::uint64_t n);

  Message outgoing(int peer, std::uint64_t n, std::uint64_t slot) const;
  Message incoming(int peer, std::uint64_t n, std::uint64_t slot) const;
  void stamp_tag(const Message& out) const;
  void expect_tag(const Message& in, bool stamped_by_host);
  void check_leg(int to, int from, std::uint64_t bytes, std::uint64_t slot, std::uint64_t seed);
  void arrived(const Message& in);  // the fault switch, where a check is about to read

  std::string module_;
  std::uint64_t window_ = 1;  // of the trial in progress
  std::optional<ByteFlip> flip_;
  MessageMemory& memory_;
  bool mine_on_host_;
  bool peer_on_host_;
  Transport& transport_;
  Peers peers_;
  std::uint64_t counter_ = 0;
  std::uint64_t rep_ = 0;              // within the trial, for the failure's words
  FirstDamage damage_;
};

}  // namespace npgpu
