// memcpy: copies inside one process, NetPIPE's memcpy module. Every rank measures its own memory.
#include <cstring>

#include "npgpu/module.hpp"
#include "npgpu/buffers.hpp"
#include "npgpu/fault.hpp"

namespace npgpu {
namespace {

class MemcpyModule final : public Module {
 public:
  void setup(const ModuleSetup& setup) override {
    const std::uint64_t pool = host_pool_bytes(setup.run, setup.max_bytes);
    source_ = HostBuffer(pool);
    target_ = HostBuffer(pool);
    rotation_ = Rotation(pool, setup.run.cache == CacheState::cold);
    flip_ = setup.run.flip;
  }

  TrialTiming run(const TrialSpec& trial) override {
    const std::uint64_t n = trial.bytes;
    const bool round_trip = trial.pattern == Pattern::pingpong;
    const double start = trial.clock.now();
    for (std::uint64_t rep = 0; rep < trial.reps; ++rep, ++counter_) {
      const auto tag = static_cast<std::uint8_t>(counter_);
      std::byte* from = source_.data() + rotation_.offset(n, 2 * counter_);
      std::byte* to = target_.data() + rotation_.offset(n, 2 * counter_);
      stamp(from, n, tag);
      std::memcpy(to, from, n);
      if (round_trip) std::memcpy(source_.data() + rotation_.offset(n, 2 * counter_ + 1), to, n);
      if (const auto offset = byte_to_flip(flip_, n)) flip_host_byte(to, *offset);
      if (const std::uint64_t bad = untagged_byte(to, n, tag); bad != n)
        throw DataError("memcpy: byte " + std::to_string(bad) + " of a " + std::to_string(n) +
                        "-byte copy arrived changed (its tag, in repetition " + std::to_string(rep + 1) + " of the trial)");
    }
    return {trial.clock.now() - start};
  }

  void check(std::uint64_t bytes, std::uint64_t seed) override {
    fill_pattern(source_.data(), bytes, seed);
    std::memcpy(target_.data(), source_.data(), bytes);
    if (const auto offset = byte_to_flip(flip_, bytes)) flip_host_byte(target_.data(), *offset);
    const std::uint64_t bad = first_mismatch(target_.data(), bytes, seed);
    if (bad != bytes)
      throw DataError("memcpy: byte " + std::to_string(bad) + " of a " + std::to_string(bytes) +
                      "-byte copy arrived changed (--check, which reads every byte)");
  }

  TransferShape shape(Pattern pattern, std::uint64_t bytes, std::uint64_t) const override {
    return {pattern == Pattern::pingpong ? 2.0 : 1.0, static_cast<double>(bytes)};
  }

  std::uint64_t host_bytes_needed(const RunView& options, std::uint64_t max_bytes) const override {
    return 2 * host_pool_bytes(options, max_bytes);
  }

  std::string throughput_meaning(Pattern) const override {
    return "copy size / time per copy; each copy reads and writes its size, so memory traffic is twice this";
  }

 private:
  HostBuffer source_, target_;
  Rotation rotation_;
  std::optional<ByteFlip> flip_;
  std::uint64_t counter_ = 0;
};

}  // namespace

std::unique_ptr<Module> make_memcpy_module() { return std::make_unique<MemcpyModule>(); }

}  // namespace npgpu
