#pragma once
// mpiRma's MPI windows, and the one-sided transport over them.
//
// Each rank exposes one region: its receive pool and the notice area after it. With lock (passive
// target) it is the memory of one window over every rank, allocated by MPI (MPI_Win_allocate, so
// ranks of one node share it and Open MPI's osc sm puts with a memcpy, as osu_put_latency's default
// window does), locked once for the whole run (MPI_Win_lock_all, MPI_MODE_NOCHECK: no rank ever
// locks exclusively). A fence is collective over its window's group, and the ranks of a step are
// not all of them (an idle rank never fences), so with fence every pair of partners gets a window
// of its own over the same region (MPI_Win_create on memory from MPI_Alloc_mem, one communicator of
// two ranks each), made in setup one pair at a time, in one global order.
//
// Messages in GPU memory (a CUDA-aware MPI; Open MPI 4.1 moves them with osc pt2pt, as its osc
// rdma makes no window over GPU memory) are exposed where they are, with MPI_Win_create over the
// GPU receive pool, and the notice area, which must be host memory to be polled, is a window of
// its own over every rank (MPI_Win_allocate, locked once too).
#include <mpi.h>

#include <cstdint>
#include <string>
#include <vector>

#include "npgpu/pairing.hpp"
#include "pair/one_sided_patterns.hpp"

namespace npgpu {

class RmaWindows final : public OneSidedTransport {
 public:
  // Collective over comm; `pairing` says which ranks exchange in some step. Exposes a receive pool
  // of `pool_bytes` that MPI allocates in host memory (exposed()), or `gpu_pool` where given.
  // UsageError on every rank where MPI cannot make a window.
  RmaWindows(MPI_Comm comm, std::uint64_t pool_bytes, OneSidedSync sync, const RankPairing& pairing,
             std::byte* gpu_pool = nullptr);
  ~RmaWindows() override;
  RmaWindows(const RmaWindows&) = delete;
  RmaWindows& operator=(const RmaWindows&) = delete;

  std::byte* exposed() const { return exposed_; }  // the host receive pool MPI allocated; null for GPU memory

  void put(const std::byte* source, std::uint64_t bytes, int peer, std::uint64_t offset) override;
  void get(std::byte* target, std::uint64_t bytes, int peer, std::uint64_t offset) override;
  void flush(int peer) override;
  void get_completed(std::byte* target, std::uint64_t bytes, int peer, std::uint64_t offset) override;
  std::byte* notices() override { return notices_; }
  void put_notice(const std::byte* notice, int peer) override;
  void fence(int peer) override;
  // MPI_Win_sync, in every turn of a poll. In the separate memory model it copies what peers put
  // into the public copy of the window over to the private one this rank loads from; in the unified
  // model (one copy) it is the memory barrier that MPI-3 asks between seeing a peer's write and
  // reading what it wrote, and between this rank's own stores and a peer's access. osc rdma also
  // progresses there what it moves in software (its put over TCP is an active message). With GPU
  // memory, on the notice window, and a probe besides: osc pt2pt progresses nothing in MPI_Win_sync.
  void refresh() override;

  // For the record: how the windows were made, what refresh() calls, and the memory model MPI
  // reports for them.
  std::string description() const;
  std::string refresh_description() const;
  std::string memory_model() const;

 private:
  struct PairWindow {
    int partner;      // rank in the module's communicator
    int rank_in_win;  // the partner's rank in the pair's communicator
    MPI_Comm comm;
    MPI_Win win;
  };
  // Where a put or get toward `peer` goes: its rank in the window that serves the pair, and the window.
  struct Target {
    int rank;
    MPI_Win win;
  };
  const PairWindow& pair_with(int peer) const;
  Target toward(int peer) const;
  std::string make_pair_windows(MPI_Comm comm, std::byte* region, MPI_Aint size, const RankPairing& pairing);
  void release();  // frees the windows, collective like their creation

  OneSidedSync sync_;
  bool on_device_ = false;
  MPI_Comm comm_;  // the module's, probed for progress with GPU memory
  int ranks_ = 0;
  std::uint64_t bytes_ = 0;        // exposed by each rank in the message windows
  std::byte* exposed_ = nullptr;   // host memory MPI allocated for them
  std::byte* notices_ = nullptr;   // this rank's notice area
  MPI_Win all_ = MPI_WIN_NULL;     // lock: one window over every rank
  MPI_Win notice_win_ = MPI_WIN_NULL;  // lock with GPU memory: the notice areas, over every rank
  std::vector<PairWindow> pairs_;  // fence: one per partner, in creation order
};

}  // namespace npgpu
