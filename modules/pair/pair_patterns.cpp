#include "pair/pair_patterns.hpp"

#include "npgpu/errors.hpp"

namespace npgpu {
namespace {

constexpr std::uint64_t kAckBytes = 4;  // as osu_bw

}  // namespace

PairPatterns::PairPatterns(std::string module, int rank, std::uint64_t window, MessageMemory& memory,
                           bool peer_on_device, Transport& transport)
    : module_(std::move(module)), rank_(rank), window_(window), memory_(memory), mine_on_host_(!memory.on_device()),
      peer_on_host_(!peer_on_device), transport_(transport) {}

TrialTiming PairPatterns::run(const TrialSpec& trial) {
  const double start = trial.clock.now();
  for (std::uint64_t rep = 0; rep < trial.reps; ++rep, ++counter_) {
    switch (trial.pattern) {
      case Pattern::pingpong: pingpong(trial.bytes); break;
      case Pattern::stream: stream(trial.bytes); break;
      case Pattern::bidir: bidir(trial.bytes); break;
    }
  }
  return {trial.clock.now() - start};
}

void PairPatterns::check(std::uint64_t bytes, std::uint64_t seed) {
  for (int leg = 0; leg < 2; ++leg) {
    const bool sending = (leg == 0) == (rank_ == 0);
    const std::uint64_t leg_seed = seed + static_cast<std::uint64_t>(leg);
    if (sending) {
      const Message out = outgoing(bytes, 0);
      memory_.fill(out.data, bytes, leg_seed);
      transport_.send(out);
      transport_.complete();
    } else {
      const Message in = incoming(bytes, 0);
      transport_.receive(in);
      transport_.complete();
      const std::uint64_t bad = memory_.first_mismatch(in.data, bytes, leg_seed);
      if (bad != bytes)
        throw RunError(module_ + ": byte " + std::to_string(bad) + " of a " + std::to_string(bytes) +
                       "-byte message arrived changed");
    }
  }
}

Message PairPatterns::outgoing(std::uint64_t n, std::uint64_t slot) const {
  return {memory_.send_slot(n, slot), n, !mine_on_host_};
}

Message PairPatterns::incoming(std::uint64_t n, std::uint64_t slot) const {
  return {memory_.receive_slot(n, slot), n, !mine_on_host_};
}

void PairPatterns::stamp_tag(const Message& out) const {
  if (mine_on_host_) stamp(out.data, out.bytes, static_cast<std::uint8_t>(counter_));
}

void PairPatterns::expect_tag(const Message& in, bool stamped_by_host) const {
  if (!mine_on_host_ || !stamped_by_host) return;
  if (!has_stamp(in.data, in.bytes, static_cast<std::uint8_t>(counter_)))
    throw RunError(module_ + ": a " + std::to_string(in.bytes) +
                   "-byte message arrived without its tag (corrupt or out of order)");
}

// Rank 0 sends and waits for the echo; rank 1 echoes what it received.
void PairPatterns::pingpong(std::uint64_t n) {
  const Message in = incoming(n, counter_);
  if (rank_ == 0) {
    const Message out = outgoing(n, counter_);
    stamp_tag(out);
    transport_.send(out);
    transport_.complete();
    transport_.receive(in);
    transport_.complete();
  } else {
    transport_.receive(in);
    transport_.complete();
    transport_.send(in);
    transport_.complete();
  }
  expect_tag(in, rank_ == 0 ? mine_on_host_ : peer_on_host_);
}

// Rank 0 sends a window of messages; rank 1 receives them all, then acknowledges (osu_bw).
void PairPatterns::stream(std::uint64_t n) {
  for (std::uint64_t i = 0; i < window_; ++i) {
    const std::uint64_t slot = counter_ * window_ + i;
    if (rank_ == 0) {
      const Message out = outgoing(n, slot);
      stamp_tag(out);
      transport_.send(out);
    } else {
      transport_.receive(incoming(n, slot));
    }
  }
  transport_.complete();
  // The ack travels between the same kinds of memory as the data, as in osu_bw.
  if (rank_ == 0) {
    transport_.receive(incoming(kAckBytes, 0));
  } else {
    expect_tag(incoming(n, counter_ * window_ + window_ - 1), peer_on_host_);
    transport_.send(outgoing(kAckBytes, 0));
  }
  transport_.complete();
}

// Both ranks send a window and receive a window at once (osu_bibw).
void PairPatterns::bidir(std::uint64_t n) {
  for (std::uint64_t i = 0; i < window_; ++i) transport_.receive(incoming(n, counter_ * window_ + i));
  for (std::uint64_t i = 0; i < window_; ++i) {
    const Message out = outgoing(n, counter_ * window_ + i);
    stamp_tag(out);
    transport_.send(out);
  }
  transport_.complete();
  expect_tag(incoming(n, counter_ * window_ + window_ - 1), peer_on_host_);
}

}  // namespace npgpu
