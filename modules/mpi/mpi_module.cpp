// mpi: host buffers between two ranks with MPI point-to-point calls (NetPIPE's and OSU's method).
#include <mpi.h>

#include <climits>
#include <vector>

#include "factories.hpp"
#include "npgpu/buffers.hpp"
#include "npgpu/errors.hpp"
#include "npgpu/sysinfo.hpp"

namespace npgpu {
namespace {

constexpr int kDataTag = 1;
constexpr int kAckTag = 2;
constexpr int kAckBytes = 4;  // as osu_bw

class MpiModule final : public Module {
 public:
  ~MpiModule() override {
    if (comm_ != MPI_COMM_NULL) MPI_Comm_free(&comm_);
  }

  void setup(const ModuleSetup& setup) override {
    if (setup.max_bytes > static_cast<std::uint64_t>(INT_MAX))
      throw UsageError("--upper " + std::to_string(setup.max_bytes) +
                       ": module mpi sends at most 2147483647 bytes per message (MPI counts are int)");
    MPI_Comm_dup(setup.team.comm(), &comm_);
    MPI_Comm_rank(comm_, &rank_);
    peer_ = 1 - rank_;
    const std::uint64_t pool = pool_bytes(setup.options, setup.max_bytes);
    send_ = HostBuffer(pool);
    receive_ = HostBuffer(pool);
    rotation_ = Rotation(pool, setup.options.cache == CacheState::cold);
    window_ = setup.options.window;
    requests_.resize(2 * window_);
  }

  TrialTiming run(const TrialSpec& trial) override {
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

  void check(std::uint64_t bytes, std::uint64_t seed) override {
    const int n = static_cast<int>(bytes);
    // Rank 0 sends one pattern, rank 1 checks it and answers with another, which rank 0 checks.
    for (int leg = 0; leg < 2; ++leg) {
      const bool sending = (leg == 0) == (rank_ == 0);
      const std::uint64_t leg_seed = seed + static_cast<std::uint64_t>(leg);
      if (sending) {
        fill_pattern(send_.data(), bytes, leg_seed);
        MPI_Send(send_.data(), n, MPI_BYTE, peer_, kDataTag, comm_);
      } else {
        MPI_Recv(receive_.data(), n, MPI_BYTE, peer_, kDataTag, comm_, MPI_STATUS_IGNORE);
        const std::uint64_t bad = first_mismatch(receive_.data(), bytes, leg_seed);
        if (bad != bytes)
          throw RunError("mpi: byte " + std::to_string(bad) + " of a " + std::to_string(bytes) +
                         "-byte message arrived changed");
      }
    }
  }

  std::uint64_t host_bytes_needed(const RunOptions& options, std::uint64_t max_bytes) const override {
    return 2 * pool_bytes(options, max_bytes);
  }

 private:
  static std::uint64_t pool_bytes(const RunOptions& options, std::uint64_t max_bytes) {
    return rotation_pool_bytes(max_bytes, last_level_cache_bytes(), options.cache == CacheState::cold);
  }

  std::byte* send_slot(std::uint64_t n, std::uint64_t index) const { return send_.data() + rotation_.offset(n, index); }
  std::byte* receive_slot(std::uint64_t n, std::uint64_t index) const {
    return receive_.data() + rotation_.offset(n, index);
  }
  std::uint8_t tag() const { return static_cast<std::uint8_t>(counter_); }

  void expect_stamp(const std::byte* message, std::uint64_t n) const {
    if (!has_stamp(message, n, tag()))
      throw RunError("mpi: a " + std::to_string(n) + "-byte message arrived without its tag (corrupt or out of order)");
  }

  // Rank 0 sends and waits for the echo; rank 1 echoes what it received.
  void pingpong(std::uint64_t n) {
    const int count = static_cast<int>(n);
    std::byte* in = receive_slot(n, counter_);
    if (rank_ == 0) {
      std::byte* out = send_slot(n, counter_);
      stamp(out, n, tag());
      MPI_Send(out, count, MPI_BYTE, peer_, kDataTag, comm_);
      MPI_Recv(in, count, MPI_BYTE, peer_, kDataTag, comm_, MPI_STATUS_IGNORE);
    } else {
      MPI_Recv(in, count, MPI_BYTE, peer_, kDataTag, comm_, MPI_STATUS_IGNORE);
      MPI_Send(in, count, MPI_BYTE, peer_, kDataTag, comm_);
    }
    expect_stamp(in, n);
  }

  // Rank 0 sends a window of messages; rank 1 receives them all, then acknowledges (osu_bw).
  void stream(std::uint64_t n) {
    const int count = static_cast<int>(n);
    const int window = static_cast<int>(window_);
    char ack[kAckBytes] = {};
    for (int i = 0; i < window; ++i) {
      const std::uint64_t slot = counter_ * window_ + static_cast<std::uint64_t>(i);
      if (rank_ == 0) {
        std::byte* out = send_slot(n, slot);
        stamp(out, n, tag());
        MPI_Isend(out, count, MPI_BYTE, peer_, kDataTag, comm_, &requests_[static_cast<std::size_t>(i)]);
      } else {
        MPI_Irecv(receive_slot(n, slot), count, MPI_BYTE, peer_, kDataTag, comm_, &requests_[static_cast<std::size_t>(i)]);
      }
    }
    MPI_Waitall(window, requests_.data(), MPI_STATUSES_IGNORE);
    if (rank_ == 0) {
      MPI_Recv(ack, kAckBytes, MPI_CHAR, peer_, kAckTag, comm_, MPI_STATUS_IGNORE);
    } else {
      expect_stamp(receive_slot(n, counter_ * window_ + window_ - 1), n);
      MPI_Send(ack, kAckBytes, MPI_CHAR, peer_, kAckTag, comm_);
    }
  }

  // Both ranks send a window and receive a window at once (osu_bibw).
  void bidir(std::uint64_t n) {
    const int count = static_cast<int>(n);
    const int window = static_cast<int>(window_);
    for (int i = 0; i < window; ++i) {
      const std::uint64_t slot = counter_ * window_ + static_cast<std::uint64_t>(i);
      MPI_Irecv(receive_slot(n, slot), count, MPI_BYTE, peer_, kDataTag, comm_, &requests_[static_cast<std::size_t>(i)]);
    }
    for (int i = 0; i < window; ++i) {
      const std::uint64_t slot = counter_ * window_ + static_cast<std::uint64_t>(i);
      std::byte* out = send_slot(n, slot);
      stamp(out, n, tag());
      MPI_Isend(out, count, MPI_BYTE, peer_, kDataTag, comm_, &requests_[static_cast<std::size_t>(window + i)]);
    }
    MPI_Waitall(2 * window, requests_.data(), MPI_STATUSES_IGNORE);
    expect_stamp(receive_slot(n, counter_ * window_ + window_ - 1), n);
  }

  MPI_Comm comm_ = MPI_COMM_NULL;
  int rank_ = 0;
  int peer_ = 1;
  HostBuffer send_, receive_;
  Rotation rotation_;
  std::uint64_t window_ = 1;
  std::vector<MPI_Request> requests_;
  std::uint64_t counter_ = 0;
};

}  // namespace

std::unique_ptr<Module> make_mpi_module() { return std::make_unique<MpiModule>(); }

}  // namespace npgpu
