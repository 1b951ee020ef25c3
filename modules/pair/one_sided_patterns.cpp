#include "pair/one_sided_patterns.hpp"

#include <atomic>
#include <chrono>
#include <stdexcept>

namespace npgpu {
namespace {

// A put's bytes may land in any order (memcpy can store a message's first bytes after its last), so
// a first byte is given this long to follow the last before its tag counts as corrupt.
constexpr std::chrono::seconds kFirstByteGrace{1};

// Tags and notice counts take 7 bits. The bytes the patterns arm (the tag's complement) and the fault
// switch's flips (XOR 0xFF) have the eighth bit set, so neither is ever taken for an arrival.
std::uint8_t tag_of(std::uint64_t count) { return static_cast<std::uint8_t>(count & 0x7F); }

// A byte a peer may be writing: read whole, and before anything read after it.
std::uint8_t seen(const std::byte* at) {
  return std::to_integer<std::uint8_t>(std::atomic_ref<std::byte>(*const_cast<std::byte*>(at)).load(std::memory_order_acquire));
}

// Where a message will be polled, a value its tag never has: set before the write is asked for, so
// what a slot held before (an earlier size, the check's pattern, a message 128 repetitions back)
// cannot pass for the message.
void arm(std::byte* message, std::uint64_t bytes, std::uint8_t tag) { stamp(message, bytes, static_cast<std::uint8_t>(~tag)); }

// The fixed content of the exposed memory for gets: byte `offset` of the pool.
std::byte exposed_byte(std::uint64_t offset) { return static_cast<std::byte>(((offset + 1) * 0x9E3779B97F4A7C15ull) >> 56); }

// A get's tag: the first and last byte it must bring, of `n` at `at` in the exposed memory.
struct GetTag {
  std::byte first, last;
};
GetTag get_tag(std::uint64_t at, std::uint64_t n) { return {exposed_byte(at), exposed_byte(at + n - 1)}; }

// What the get must replace, so that one that moved nothing is caught.
void arm_get(std::byte* in, std::uint64_t n, GetTag tag) {
  in[0] = ~tag.first;
  in[n - 1] = ~tag.last;
}

bool brought(const std::byte* in, std::uint64_t n, GetTag tag) { return in[0] == tag.first && in[n - 1] == tag.last; }

}  // namespace

std::uint64_t one_sided_notice_offset(std::uint64_t pool_bytes) {
  return (pool_bytes + one_sided_notice_bytes - 1) / one_sided_notice_bytes * one_sided_notice_bytes;
}

std::uint64_t one_sided_exposed_bytes(std::uint64_t pool_bytes) {
  return one_sided_notice_offset(pool_bytes) + one_sided_notice_bytes;
}

OneSidedPatterns::OneSidedPatterns(std::string module, OneSidedOperation operation, OneSidedSync sync,
                                   const RunView& options, MessageMemory& memory, OneSidedTransport& transport)
    : module_(std::move(module)), tagged_(!memory.on_device()), operation_(operation), sync_(sync), flip_(options.flip),
      memory_(memory), transport_(transport), damage_(module_) {
  if (tagged_ && operation_ == OneSidedOperation::get) restore_exposed(0, memory_.pool_bytes());
}

void OneSidedPatterns::select_peers(const Peers& peers) {
  if (peers.to >= 0 && peers.from >= 0)
    throw std::logic_error(module_ + ": the one-sided patterns take one role per step, and this rank was given two");
  peers_ = peers;
  counter_ = 0;
  notices_sent_ = notices_seen_ = 0;
  if (sync_ == OneSidedSync::fence) return;
  *transport_.notices() = std::byte{0xFF};
  transport_.refresh();
}

TrialTiming OneSidedPatterns::run(const TrialSpec& trial) {
  window_ = trial.window;
  const std::uint64_t n = trial.bytes;
  // Passive-target gets need nothing of the target but progress, until the initiator is done.
  const bool serves = operation_ == OneSidedOperation::get && sync_ == OneSidedSync::flush &&
                      trial.pattern != Pattern::bidir;
  start_trial(trial.pattern, n);
  const double start = trial.clock.now();
  if (serves && !initiator()) {
    await_notice();
    counter_ += trial.reps;
  } else if (operation_ == OneSidedOperation::get && trial.pattern == Pattern::pingpong && initiator()) {
    get_pingpong(n, trial.reps);
  } else {
    for (rep_ = 0; rep_ < trial.reps; ++rep_, ++counter_) repeat(trial.pattern, n);
  }
  const double seconds = trial.clock.now() - start;
  if (serves && initiator()) notify(peers_.to);
  damage_.throw_if_noted();
  return {seconds};
}

// A repetition of every pattern but the get pingpong's initiator (get_pingpong).
void OneSidedPatterns::repeat(Pattern pattern, std::uint64_t n) {
  const bool both_ways = pattern == Pattern::bidir;
  if (operation_ == OneSidedOperation::put) {
    if (pattern == Pattern::pingpong) put_pingpong(n);
    else put_windows(n, both_ways || initiator(), both_ways || !initiator());
  } else if (both_ways || initiator()) {
    get_windows(n, window_, both_ways);
  } else {
    complete(peers_.from);  // the target's part of a fenced get
  }
}

// Before the clock: a fenced trial opens its first epoch; a passive-target put pingpong arms where
// its first messages will be polled (tagged), and the target says when it is ready.
void OneSidedPatterns::start_trial(Pattern pattern, std::uint64_t n) {
  if (sync_ == OneSidedSync::fence) {
    transport_.fence(peer());
    return;
  }
  if (operation_ != OneSidedOperation::put || pattern != Pattern::pingpong) return;
  if (initiator()) {
    if (tagged_) arm(exposed(n, 2 * counter_ + 1), n, tag_of(counter_));
    await_notice();
  } else {
    if (tagged_) arm(exposed(n, 2 * counter_), n, tag_of(counter_));
    transport_.refresh();
    notify(peers_.from);
  }
}

// The ping lands in the slot it left from, the pong in the next one. Tagged, with flush, each side
// arms the slot of its next message while it waits for this one (only its own peer writes there,
// and only once this exchange is over); a slot that the next message shares needs none, as
// consecutive tags differ.
void OneSidedPatterns::put_pingpong(std::uint64_t n) {
  const std::uint8_t tag = tag_of(counter_);
  const std::uint64_t ping_slot = 2 * counter_, pong_slot = ping_slot + 1;
  if (initiator()) {
    std::byte* out = local(n, ping_slot);
    if (tagged_) stamp(out, n, tag);
    put_and_tell(out, n, peers_.to, ping_slot);
    const Message pong = arrived_at(exposed(n, pong_slot), n);
    wait_for(pong, exposed(n, pong_slot + 2), peers_.to);
    arrived(pong);
    if (tagged_) expect_tag(pong, tag);
    return;
  }
  const Message ping = arrived_at(exposed(n, ping_slot), n);
  wait_for(ping, exposed(n, ping_slot + 2), peers_.from);
  // Checked before the answer: once the answer is out, the next ping may land in this slot. The
  // answer carries the tag whatever the ping's bytes were: a corrupt ping is reported here, and the
  // peer must still see its answer arrive.
  arrived(ping);
  if (tagged_) {
    expect_tag(ping, tag);
    stamp(ping.data, n, tag);
  }
  put_and_tell(ping.data, n, peers_.from, pong_slot);
}

// A put completed; untagged with flush, a notice after it tells the peer it is there.
void OneSidedPatterns::put_and_tell(const std::byte* data, std::uint64_t n, int peer, std::uint64_t slot) {
  transport_.put(data, n, peer, offset(n, slot));
  complete(peer);
  if (!tagged_ && sync_ == OneSidedSync::flush) notify(peer);
}

// Returns once `in`, put by `peer`, is here: with fence, when the epoch closes; tagged, when its
// last and first byte show the tag, arming `next` (the slot of the next message) meanwhile;
// untagged, when the notice after it is.
void OneSidedPatterns::wait_for(const Message& in, std::byte* next, int peer) {
  if (sync_ == OneSidedSync::fence) return complete(peer);
  if (!tagged_) return await_notice();
  arm_next(in.data, next, in.bytes);
  await(in, tag_of(counter_));
}

void OneSidedPatterns::arm_next(const std::byte* current, std::byte* next, std::uint64_t n) {
  if (next != current) arm(next, n, tag_of(counter_ + 1));
}

// A window of puts from the side that `sends` to the side that `reads` (stream: one each; bidir:
// both). With flush, the sender's notice after its flush says the window is complete, the reader's
// notice that it read the tag, so the next window may land; with fence, two fences say the same.
void OneSidedPatterns::put_windows(std::uint64_t n, bool sends, bool reads) {
  const std::uint64_t first = counter_ * window_;
  const int to = peer();
  if (sends)
    for (std::uint64_t i = 0; i < window_; ++i) {
      std::byte* out = local(n, first + i);
      if (tagged_) stamp(out, n, tag_of(counter_));
      transport_.put(out, n, to, offset(n, first + i));
    }
  const Message last = arrived_at(exposed(n, first + window_ - 1), n);
  if (sync_ == OneSidedSync::fence) {
    transport_.fence(to);
    if (reads) {
      arrived(last);
      if (tagged_) expect_tag(last, tag_of(counter_));
    }
    transport_.fence(to);
    return;
  }
  if (sends) {
    transport_.flush(to);
    notify(to);
  }
  if (reads) {
    await_notice();
    arrived(last);
    if (tagged_) expect_tag(last, tag_of(counter_));
    notify(to);
  }
  if (sends) await_notice();
}

// The initiator's repetitions of a get pingpong: one get and its completion each, the tag around
// it, and nothing else. A get and its flush take ~26 ns on an H200 host's shared memory, and
// get_windows' general loop, with its choices made again every repetition and the get and flush
// two calls into the transport, added ~13 ns of its own there (bench/rma.py: x1.31-1.54 of
// bare_rma.c's get_tagged). Here the choices are made once and the get and flush are one call.
void OneSidedPatterns::get_pingpong(std::uint64_t n, std::uint64_t reps) {
  const int from = peer();
  const bool fenced = sync_ == OneSidedSync::fence;
  const std::optional<std::uint64_t> flip = byte_to_flip(flip_, n);
  const std::uint64_t first = counter_;
  for (std::uint64_t rep = 0; rep < reps; ++rep) {
    std::byte* in = local(n, first + rep);
    const std::uint64_t at = offset(n, first + rep);
    const GetTag tag = get_tag(at, n);
    if (tagged_) arm_get(in, n, tag);
    if (fenced) {
      transport_.get(in, n, from, at);
      transport_.fence(from);
    } else {
      transport_.get_completed(in, n, from, at);
    }
    if (flip) memory_.flip_byte(in, *flip);
    if (tagged_ && !brought(in, n, tag)) {
      rep_ = rep;
      expect_exposed_content(arrived_at(in, n), at);
    }
  }
  counter_ += reps;
}

// `count` gets from the peer and their completion; bidir (`both_ways`) keeps the two sides in step,
// a notice each way after every window.
void OneSidedPatterns::get_windows(std::uint64_t n, std::uint64_t count, bool both_ways) {
  const std::uint64_t first = counter_ * count;
  const int from = peer();
  for (std::uint64_t i = 0; i < count; ++i) {
    std::byte* in = local(n, first + i);
    const std::uint64_t at = offset(n, first + i);
    if (tagged_) arm_get(in, n, get_tag(at, n));
    transport_.get(in, n, from, at);
  }
  complete(from);
  const Message last = arrived_at(local(n, first + count - 1), n);
  arrived(last);
  if (tagged_) expect_exposed_content(last, offset(n, first + count - 1));
  if (both_ways && sync_ == OneSidedSync::flush) {
    notify(from);
    await_notice();
  }
}

void OneSidedPatterns::complete(int peer) {
  if (sync_ == OneSidedSync::flush) transport_.flush(peer);
  else transport_.fence(peer);
}

// The last byte first, then the first byte, both carrying the tag (the grace above). A message whose
// last byte never shows it is a peer that stopped answering, for the driver's bounded wait.
void OneSidedPatterns::await(const Message& in, std::uint8_t tag) {
  do transport_.refresh();
  while (seen(in.data + in.bytes - 1) != tag);
  if (seen(in.data) == tag || damage_.noted()) return;
  const auto until = std::chrono::steady_clock::now() + kFirstByteGrace;
  do {
    transport_.refresh();
    if (seen(in.data) == tag) return;
  } while (std::chrono::steady_clock::now() < until);
  damage_.note(in, 0, "its tag, in repetition " + std::to_string(rep_ + 1) +
                         " of the trial: the first byte did not show it within a second of the last");
}

// A notice is one byte carrying the sender's count of notices this step.
void OneSidedPatterns::notify(int peer) {
  notice_[0] = std::byte{tag_of(++notices_sent_)};
  transport_.put_notice(notice_.data(), peer);
  transport_.flush(peer);
}

// A peer may be one notice ahead (bidir sends two per window, which may land before the first is
// seen): a count at or past the expected one, within half the 7-bit range, is there; the armed byte
// (eighth bit set) never is.
void OneSidedPatterns::await_notice() {
  const std::uint8_t expected = tag_of(++notices_seen_);
  const std::byte* notice = transport_.notices();
  for (;;) {
    transport_.refresh();
    const std::uint8_t count = seen(notice);
    if (count < 0x80 && ((count - expected) & 0x7F) < 0x40) return;
  }
}

// Outside the timing. Leg 1: the rank with `to` moves a message toward it; leg 2: the rank with
// `from` toward that one. Both sides of a fenced leg fence alike.
void OneSidedPatterns::check(std::uint64_t bytes, std::uint64_t seed) {
  const bool has_to = peers_.to >= 0, has_from = peers_.from >= 0;
  if (operation_ == OneSidedOperation::put) {
    put_leg(has_to, has_from, bytes, 0, seed);
    put_leg(has_from, has_to, bytes, 1, seed + 1);
  } else {
    get_leg(has_to, has_from, bytes, 0, seed);
    get_leg(has_from, has_to, bytes, 1, seed + 1);
  }
  damage_.throw_if_noted();
}

void OneSidedPatterns::put_leg(bool initiator, bool target, std::uint64_t n, std::uint64_t slot, std::uint64_t seed) {
  const bool fence = sync_ == OneSidedSync::fence;
  if (initiator) memory_.fill(local(n, slot), n, seed);
  if (fence) transport_.fence(peer());
  if (initiator) transport_.put(local(n, slot), n, peer(), offset(n, slot));
  if (fence) {
    transport_.fence(peer());
  } else if (initiator) {
    transport_.flush(peer());
    notify(peer());
  }
  if (!target) return;
  if (!fence) await_notice();
  verify(exposed(n, slot), n, seed);
}

// The holder writes the pattern into its exposed memory, the initiator reads it, and the holder puts
// back the fixed content the timed gets are checked against.
void OneSidedPatterns::get_leg(bool initiator, bool holder, std::uint64_t n, std::uint64_t slot, std::uint64_t seed) {
  const bool fence = sync_ == OneSidedSync::fence;
  if (holder) memory_.fill(exposed(n, slot), n, seed);
  if (fence) {
    transport_.fence(peer());
  } else if (holder) {
    transport_.refresh();
    notify(peer());
  }
  if (initiator) {
    if (!fence) await_notice();
    transport_.get(local(n, slot), n, peer(), offset(n, slot));
  }
  if (fence) transport_.fence(peer());
  else if (initiator) transport_.flush(peer());
  if (initiator) {
    verify(local(n, slot), n, seed);
    if (!fence) notify(peer());
  }
  if (!holder) return;
  if (!fence) await_notice();
  if (tagged_) restore_exposed(offset(n, slot), n);
}

void OneSidedPatterns::verify(std::byte* data, std::uint64_t n, std::uint64_t seed) {
  const Message in = arrived_at(data, n);
  arrived(in);
  const std::uint64_t bad = memory_.first_mismatch(in.data, n, seed);
  if (bad != n) damage_.note(in, bad, "--check, which reads every byte");
}

void OneSidedPatterns::restore_exposed(std::uint64_t from, std::uint64_t bytes) {
  std::byte* pool = memory_.receive_pool();
  for (std::uint64_t at = from; at < from + bytes; ++at) pool[at] = exposed_byte(at);
  if (sync_ == OneSidedSync::flush) transport_.refresh();
}

std::uint64_t OneSidedPatterns::offset(std::uint64_t n, std::uint64_t slot) const {
  return static_cast<std::uint64_t>(memory_.receive_slot(n, slot) - memory_.receive_pool());
}

void OneSidedPatterns::arrived(const Message& in) {
  if (const auto offset = byte_to_flip(flip_, in.bytes)) memory_.flip_byte(in.data, *offset);
}

void OneSidedPatterns::expect_tag(const Message& in, std::uint8_t tag) {
  const std::uint64_t bad = untagged_byte(in.data, in.bytes, tag);
  if (bad != in.bytes)
    damage_.note(in, bad, "its tag, in repetition " + std::to_string(rep_ + 1) + " of the trial: corrupt or out of order");
}

// A get's tag is the first and last byte of the memory it read, which holds fixed content.
void OneSidedPatterns::expect_exposed_content(const Message& in, std::uint64_t exposed_offset) {
  const GetTag tag = get_tag(exposed_offset, in.bytes);
  const std::uint64_t last = in.bytes - 1;
  std::uint64_t bad = in.bytes;
  if (in.data[last] != tag.last) bad = last;
  if (in.data[0] != tag.first) bad = 0;
  if (bad != in.bytes)
    damage_.note(in, bad, "its tag, in repetition " + std::to_string(rep_ + 1) +
                             " of the trial (a get's tag is the fixed first and last byte of the memory it read): "
                             "corrupt, or read from the wrong place");
}

}  // namespace npgpu
