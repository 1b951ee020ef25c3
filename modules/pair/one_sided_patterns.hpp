#pragma once
// pingpong, stream and bidir between ranks with one-sided puts or gets, passive target (flush) or
// active target (fence), and the full data check: the two-sided PairPatterns' measurements written
// once for the one-sided modules over any OneSidedTransport. Messages live in a MessageMemory whose
// receive pool is the exposed memory (puts land there, gets read from there); the send pool is
// local (puts leave from there, gets land there). In host memory, arrival is seen by polling bytes
// where they land, and every message carries a tag; in GPU memory, which no loop can poll, a
// message is seen by the notice that follows its completion, and carries no tag (--check reads
// every byte).
//
// A rank takes one role per step, as the driver's pairings give it (pairing_steps: no rank sends
// and receives at once): it starts the exchanges with `to` and times them, or answers `from`.
//
// What a repetition is:
// - put pingpong: a put and its completion (flush, or a fence), seen by the peer, which puts the
//   message back from where it landed; latency = half the round trip. With flush the receiver sees
//   each message by polling its last byte, then its first, which carry the tag (in GPU memory: by
//   the notice the sender puts after its flush).
// - put stream: a window of puts closed by a flush and a notice (a one-byte put) to the target,
//   which reads the last message's tag and answers with a notice; with fence, a fence closes the
//   window and a second one keeps the next window out while the target reads the tag.
// - put bidir: windows both ways at once, each closed as in stream.
// - get pingpong: one get and its completion: a request out and the data back, timed whole (one
//   transfer per repetition, not halved), as osu_get_latency times it.
// - get stream: a window of gets and one completion (osu_get_bw); bidir: both ways at once.
// A get reads exposed memory that holds fixed content (exposed_byte), so its first and last byte
// are its tag; the target takes no part but to keep the transport going (refresh) until the
// initiator's notice says the trial is over, or to fence.
#include <array>
#include <optional>
#include <string>

#include "npgpu/fault.hpp"
#include "npgpu/module.hpp"
#include "pair/one_sided_transport.hpp"
#include "pair/one_sided_words.hpp"
#include "pair/first_damage.hpp"
#include "pair/transport.hpp"

namespace npgpu {

// What a rank exposes for a receive pool of `pool_bytes` in host memory: the pool, then the notice
// area (where a peer's notices land: one byte carrying a count), which starts at
// one_sided_notice_offset and is one_sided_notice_bytes long.
std::uint64_t one_sided_exposed_bytes(std::uint64_t pool_bytes);
std::uint64_t one_sided_notice_offset(std::uint64_t pool_bytes);
inline constexpr std::uint64_t one_sided_notice_bytes = 64;  // a cache line of its own

class OneSidedPatterns {
 public:
  // `memory`'s receive pool is the exposed memory; in host memory, for gets, it is filled here
  // with the fixed content gets are checked against.
  OneSidedPatterns(std::string module, OneSidedOperation operation, OneSidedSync sync, const RunView& options,
                   MessageMemory& memory, OneSidedTransport& transport);

  // A new pairing counts its repetitions (the tags) and notices from zero on both sides. Called on
  // every rank while no peer moves bytes, so the notice area is armed here.
  void select_peers(const Peers& peers);
  const Peers& peers() const { return peers_; }

  // A corrupt message is a DataError, thrown once the trial's exchanges are over.
  TrialTiming run(const TrialSpec& trial);

  // Outside the timing: a message of `bytes` moves from the rank with `to` toward its peer (put: into
  // it; get: out of it) while the other ranks answer, every byte checked; then the other way. A
  // DataError once both legs are over.
  void check(std::uint64_t bytes, std::uint64_t seed);

  // What the record and the console say of these patterns.
  OneSidedWords words() const { return {operation_, sync_, tagged_}; }

 private:
  void repeat(Pattern pattern, std::uint64_t n);
  void start_trial(Pattern pattern, std::uint64_t n);
  void put_pingpong(std::uint64_t n);
  void put_windows(std::uint64_t n, bool sends, bool reads);
  void get_pingpong(std::uint64_t n, std::uint64_t reps);
  void get_windows(std::uint64_t n, std::uint64_t count, bool both_ways);
  void put_and_tell(const std::byte* data, std::uint64_t n, int peer, std::uint64_t slot);
  void wait_for(const Message& in, std::byte* next, int peer);
  void put_leg(bool initiator, bool target, std::uint64_t n, std::uint64_t slot, std::uint64_t seed);
  void get_leg(bool initiator, bool holder, std::uint64_t n, std::uint64_t slot, std::uint64_t seed);

  int peer() const { return peers_.to >= 0 ? peers_.to : peers_.from; }
  bool initiator() const { return peers_.to >= 0; }
  std::uint64_t offset(std::uint64_t n, std::uint64_t slot) const;  // in the exposed memory
  std::byte* local(std::uint64_t n, std::uint64_t slot) const { return memory_.send_slot(n, slot); }
  std::byte* exposed(std::uint64_t n, std::uint64_t slot) const { return memory_.receive_slot(n, slot); }

  void arm_next(const std::byte* current, std::byte* next, std::uint64_t n);
  void complete(int peer);  // flush or fence
  void await(const Message& in, std::uint8_t tag);
  void notify(int peer);
  void await_notice();
  void verify(std::byte* data, std::uint64_t n, std::uint64_t seed);
  void restore_exposed(std::uint64_t from, std::uint64_t bytes);

  Message arrived_at(std::byte* data, std::uint64_t n) const { return {data, n, false, peer()}; }
  void arrived(const Message& in);  // the fault switch, where a check is about to read
  void expect_tag(const Message& in, std::uint8_t tag);
  void expect_exposed_content(const Message& in, std::uint64_t exposed_offset);

  std::string module_;
  bool tagged_;  // host memory: messages carry tags and are polled where they land
  OneSidedOperation operation_;
  OneSidedSync sync_;
  std::optional<ByteFlip> flip_;
  MessageMemory& memory_;
  OneSidedTransport& transport_;
  Peers peers_;
  std::uint64_t window_ = 1;  // of the trial in progress
  std::uint64_t counter_ = 0;
  std::uint64_t rep_ = 0;  // within the trial, for the failure's words
  std::uint64_t notices_sent_ = 0, notices_seen_ = 0;
  std::array<std::byte, 1> notice_{};  // what notify() puts
  FirstDamage damage_;
};

}  // namespace npgpu
