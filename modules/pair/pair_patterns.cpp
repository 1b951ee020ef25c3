#include "pair/pair_patterns.hpp"


namespace npgpu {
namespace {

constexpr std::uint64_t kAckBytes = 4;  // as osu_bw

}  // namespace

PairPatterns::PairPatterns(std::string module, const RunView& options, MessageMemory& memory, bool peer_on_device,
                           Transport& transport)
    : module_(std::move(module)), flip_(options.flip), memory_(memory),
      mine_on_host_(!memory.on_device()),
      peer_on_host_(!peer_on_device), transport_(transport), damage_(module_) {}

TrialTiming PairPatterns::run(const TrialSpec& trial) {
  window_ = trial.window;
  const double start = trial.clock.now();
  for (rep_ = 0; rep_ < trial.reps; ++rep_, ++counter_) {
    switch (trial.pattern) {
      case Pattern::pingpong: pingpong(trial.bytes); break;
      case Pattern::stream: stream(trial.bytes); break;
      case Pattern::bidir: bidir(trial.bytes); break;
    }
  }
  const double seconds = trial.clock.now() - start;
  damage_.throw_if_noted();
  return {seconds};
}

void PairPatterns::check(std::uint64_t bytes, std::uint64_t seed) {
  check_leg(peers_.to, peers_.from, bytes, 0, seed);
  // cudaIpc writes into the receiver's memory: no answer may land before every check has read.
  if (peers_.to >= 0 && peers_.from >= 0) transport_.quiesce();
  check_leg(peers_.from, peers_.to, bytes, 1, seed + 1);
  damage_.throw_if_noted();
}

void PairPatterns::arrived(const Message& in) {
  if (const auto offset = byte_to_flip(flip_, in.bytes)) memory_.flip_byte(in.data, *offset);
}

void PairPatterns::check_leg(int to, int from, std::uint64_t bytes, std::uint64_t slot, std::uint64_t seed) {
  if (to >= 0) {
    const Message out = outgoing(to, bytes, slot);
    memory_.fill(out.data, bytes, seed);
    transport_.send(out);
  }
  const Message in = incoming(from, bytes, slot);
  if (from >= 0) transport_.receive(in);
  transport_.complete();
  if (from < 0) return;
  arrived(in);
  const std::uint64_t bad = memory_.first_mismatch(in.data, bytes, seed);
  if (bad != bytes) damage_.note(in, bad, "--check, which reads every byte");
}

Message PairPatterns::outgoing(int peer, std::uint64_t n, std::uint64_t slot) const {
  return {memory_.send_slot(n, slot), n, !mine_on_host_, peer};
}

Message PairPatterns::incoming(int peer, std::uint64_t n, std::uint64_t slot) const {
  return {memory_.receive_slot(n, slot), n, !mine_on_host_, peer};
}

void PairPatterns::stamp_tag(const Message& out) const {
  if (mine_on_host_) stamp(out.data, out.bytes, static_cast<std::uint8_t>(counter_));
}

void PairPatterns::expect_tag(const Message& in, bool stamped_by_host) {
  if (!mine_on_host_ || !stamped_by_host) return;
  arrived(in);
  const std::uint64_t bad = untagged_byte(in.data, in.bytes, static_cast<std::uint8_t>(counter_));
  if (bad != in.bytes)
    damage_.note(in, bad, "its tag, in repetition " + std::to_string(rep_ + 1) + " of the trial: corrupt or out of order");
}

// A round trip with `to`, timed. The ping from `from` is answered from this rank's own send slot,
// as osu_latency and ucx_perftest answer, never from the buffer it landed in: that buffer is dirty
// in this core's cache, and the peer's copy out of it (CMA, a rendezvous' get) made round trips of
// 16 KiB-1 MiB 1.2-1.5x longer than theirs (docs/ARCHITECTURE.md, "Answering a ping"). Ping and
// pong land in the slot they left from, where a transport that writes into the peer's pool
// (cudaIpc, ucx's put) puts them.
void PairPatterns::pingpong(std::uint64_t n) {
  const Message ping = incoming(peers_.from, n, counter_);
  const Message pong = incoming(peers_.to, n, counter_);
  if (peers_.to >= 0) {
    const Message out = outgoing(peers_.to, n, counter_);
    stamp_tag(out);
    transport_.send(out);
  }
  if (peers_.from >= 0) transport_.receive(ping);
  transport_.complete();
  if (peers_.from >= 0) {
    const Message answer = outgoing(peers_.from, n, counter_);
    stamp_tag(answer);
    transport_.send(answer);
  }
  if (peers_.to >= 0) transport_.receive(pong);
  transport_.complete();
  if (peers_.from >= 0) expect_tag(ping, peer_on_host_);
  if (peers_.to >= 0) expect_tag(pong, peer_on_host_);
}

// A window of messages to `to`, closed by its ack; a window from `from`, acknowledged (osu_bw). An
// incast's receiver takes a window from each sender at once, each message in a slot of its own.
void PairPatterns::stream(std::uint64_t n) {
  const std::vector<int> senders = peers_.senders();
  const auto slot_of = [&](std::uint64_t i, std::size_t sender) { return (counter_ * window_ + i) * senders.size() + sender; };
  for (std::uint64_t i = 0; i < window_; ++i) {
    if (peers_.to >= 0) {
      const Message out = outgoing(peers_.to, n, counter_ * window_ + i);
      stamp_tag(out);
      transport_.send(out);
    }
    for (std::size_t s = 0; s < senders.size(); ++s) transport_.receive(incoming(senders[s], n, slot_of(i, s)));
  }
  transport_.complete();
  // The ack travels between the same kinds of memory as the data, as in osu_bw.
  if (peers_.to >= 0) transport_.receive(incoming(peers_.to, kAckBytes, 0));
  for (std::size_t s = 0; s < senders.size(); ++s) {
    expect_tag(incoming(senders[s], n, slot_of(window_ - 1, s)), peer_on_host_);
    transport_.send(outgoing(senders[s], kAckBytes, 0));
  }
  transport_.complete();
}

// A window each way at once between the two ranks of a pair (osu_bibw).
void PairPatterns::bidir(std::uint64_t n) {
  const int peer = peers_.to >= 0 ? peers_.to : peers_.from;
  for (std::uint64_t i = 0; i < window_; ++i) transport_.receive(incoming(peer, n, counter_ * window_ + i));
  for (std::uint64_t i = 0; i < window_; ++i) {
    const Message out = outgoing(peer, n, counter_ * window_ + i);
    stamp_tag(out);
    transport_.send(out);
  }
  transport_.complete();
  expect_tag(incoming(peer, n, counter_ * window_ + window_ - 1), peer_on_host_);
}

}  // namespace npgpu
