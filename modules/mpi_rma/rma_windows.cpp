#include "mpi_rma/rma_windows.hpp"

#include <algorithm>
#include <stdexcept>
#include <utility>

#include "npgpu/errors.hpp"

namespace npgpu {
namespace {

int count_of(std::uint64_t bytes) { return static_cast<int>(bytes); }  // mpiRma refuses sizes over INT_MAX

// "MPI_Win_create: MPI_ERR_WIN: invalid window", or "" for success.
std::string failure(const char* call, int code) {
  if (code == MPI_SUCCESS) return {};
  char text[MPI_MAX_ERROR_STRING] = {};
  int length = 0;
  MPI_Error_string(code, text, &length);
  return std::string(call) + ": " + std::string(text, static_cast<std::size_t>(length));
}

// A communicator of `rank` and `partner` alone. Collective over the two of them only; the tag
// keeps apart the pairs that other ranks make at the same moment.
MPI_Comm pair_comm(MPI_Comm comm, int rank, int partner, int ranks) {
  const int members[2] = {std::min(rank, partner), std::max(rank, partner)};
  MPI_Group all = MPI_GROUP_NULL, two = MPI_GROUP_NULL;
  MPI_Comm_group(comm, &all);
  MPI_Group_incl(all, 2, members, &two);
  MPI_Comm pair = MPI_COMM_NULL;
  MPI_Comm_create_group(comm, two, members[0] * ranks + members[1], &pair);
  MPI_Group_free(&two);
  MPI_Group_free(&all);
  return pair;
}

// Every pair of partners of the run, lower rank first, in one order that every rank computes alike.
std::vector<std::pair<int, int>> pairs_of(const RankPairing& pairing, int ranks) {
  std::vector<std::pair<int, int>> pairs;
  for (int rank = 0; rank < ranks; ++rank)
    for (int partner : partners(pairing, rank))
      if (rank < partner) pairs.emplace_back(rank, partner);
  return pairs;
}

}  // namespace

RmaWindows::RmaWindows(MPI_Comm comm, std::uint64_t pool_bytes, OneSidedSync sync, const RankPairing& pairing,
                       std::byte* gpu_pool)
    : sync_(sync), on_device_(gpu_pool != nullptr), comm_(comm) {
  MPI_Comm_size(comm, &ranks_);
  bytes_ = on_device_ ? pool_bytes : one_sided_exposed_bytes(pool_bytes);
  const auto size = static_cast<MPI_Aint>(bytes_);
  // A window this MPI cannot make (no one-sided component takes the transport or the memory) is
  // refused in one line on every rank, rather than left to MPI's abort.
  MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
  std::string failed;
  if (sync_ == OneSidedSync::flush && !on_device_) {
    failed = failure("MPI_Win_allocate", MPI_Win_allocate(size, 1, MPI_INFO_NULL, comm, &exposed_, &all_));
    notices_ = exposed_ + one_sided_notice_offset(pool_bytes);
  } else if (sync_ == OneSidedSync::flush) {
    failed = failure("MPI_Win_create", MPI_Win_create(gpu_pool, size, 1, MPI_INFO_NULL, comm, &all_));
    const std::string notices = failure("MPI_Win_allocate", MPI_Win_allocate(one_sided_notice_bytes, 1, MPI_INFO_NULL,
                                                                             comm, &notices_, &notice_win_));
    if (failed.empty()) failed = notices;
  } else {
    if (!on_device_) {
      MPI_Alloc_mem(size, MPI_INFO_NULL, &exposed_);
      notices_ = exposed_ + one_sided_notice_offset(pool_bytes);
    }
    failed = make_pair_windows(comm, on_device_ ? gpu_pool : exposed_, size, pairing);
  }
  MPI_Comm_set_errhandler(comm, MPI_ERRORS_ARE_FATAL);
  int anywhere = failed.empty() ? 0 : 1;
  MPI_Allreduce(MPI_IN_PLACE, &anywhere, 1, MPI_INT, MPI_MAX, comm);
  if (anywhere != 0) {
    release();
    throw UsageError("module mpiRma: this MPI makes no RMA window over these ranks (" +
                     (failed.empty() ? std::string("on another rank") : failed) +
                     "): its one-sided components do not take every transport or memory (Open MPI's osc rdma takes "
                     "no TCP and no GPU memory; osc pt2pt does, with --mca osc pt2pt)");
  }
  if (all_ != MPI_WIN_NULL) MPI_Win_lock_all(MPI_MODE_NOCHECK, all_);
  if (notice_win_ != MPI_WIN_NULL) MPI_Win_lock_all(MPI_MODE_NOCHECK, notice_win_);
}

// One pair at a time, every rank waiting: Open MPI's osc rdma names a window's shared-memory
// segment after its communicator's id, which the two ranks of a pair agree on between them, so two
// pairs making windows at once may pick the same name and map each other's segment (the gets then
// read from addresses of the other pair: "Read -1, expected 16384, errno = 14"). The first failure,
// or "".
std::string RmaWindows::make_pair_windows(MPI_Comm comm, std::byte* region, MPI_Aint size, const RankPairing& pairing) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  std::string failed;
  for (const auto& [low, high] : pairs_of(pairing, ranks_)) {
    if (rank == low || rank == high) {
      const int partner = rank == low ? high : low;
      PairWindow pair{partner, partner < rank ? 0 : 1, pair_comm(comm, rank, partner, ranks_), MPI_WIN_NULL};
      const std::string made =
          failure("MPI_Win_create", MPI_Win_create(region, size, 1, MPI_INFO_NULL, pair.comm, &pair.win));
      if (failed.empty()) failed = made;
      pairs_.push_back(pair);
    }
    MPI_Barrier(comm);
  }
  return failed;
}

// Collective like the construction, and in its order.
RmaWindows::~RmaWindows() {
  if (notice_win_ != MPI_WIN_NULL) MPI_Win_unlock_all(notice_win_);
  if (all_ != MPI_WIN_NULL) MPI_Win_unlock_all(all_);
  release();
}

void RmaWindows::release() {
  if (notice_win_ != MPI_WIN_NULL) MPI_Win_free(&notice_win_);
  if (all_ != MPI_WIN_NULL) MPI_Win_free(&all_);
  for (PairWindow& pair : pairs_) {
    if (pair.win != MPI_WIN_NULL) MPI_Win_free(&pair.win);
    MPI_Comm_free(&pair.comm);
  }
  pairs_.clear();
  if (sync_ == OneSidedSync::fence && exposed_ != nullptr) MPI_Free_mem(exposed_);
  exposed_ = nullptr;
}

const RmaWindows::PairWindow& RmaWindows::pair_with(int peer) const {
  const auto found = std::find_if(pairs_.begin(), pairs_.end(), [peer](const PairWindow& p) { return p.partner == peer; });
  if (found == pairs_.end()) throw std::logic_error("mpiRma: no window with rank " + std::to_string(peer));
  return *found;
}

RmaWindows::Target RmaWindows::toward(int peer) const {
  if (sync_ == OneSidedSync::flush) return {peer, all_};
  const PairWindow& pair = pair_with(peer);
  return {pair.rank_in_win, pair.win};
}

void RmaWindows::put(const std::byte* source, std::uint64_t bytes, int peer, std::uint64_t offset) {
  const Target to = toward(peer);
  MPI_Put(source, count_of(bytes), MPI_BYTE, to.rank, static_cast<MPI_Aint>(offset), count_of(bytes), MPI_BYTE, to.win);
}

void RmaWindows::get(std::byte* target, std::uint64_t bytes, int peer, std::uint64_t offset) {
  const Target from = toward(peer);
  MPI_Get(target, count_of(bytes), MPI_BYTE, from.rank, static_cast<MPI_Aint>(offset), count_of(bytes), MPI_BYTE,
          from.win);
}

// The pool's window alone is flushed: the get touched no other.
void RmaWindows::get_completed(std::byte* target, std::uint64_t bytes, int peer, std::uint64_t offset) {
  const Target from = toward(peer);
  MPI_Get(target, count_of(bytes), MPI_BYTE, from.rank, static_cast<MPI_Aint>(offset), count_of(bytes), MPI_BYTE,
          from.win);
  MPI_Win_flush(from.rank, from.win);
}

void RmaWindows::flush(int peer) {
  MPI_Win_flush(peer, all_);
  if (notice_win_ != MPI_WIN_NULL) MPI_Win_flush(peer, notice_win_);
}

void RmaWindows::put_notice(const std::byte* notice, int peer) {
  if (notice_win_ == MPI_WIN_NULL) {
    put(notice, 1, peer, static_cast<std::uint64_t>(notices_ - exposed_));
    return;
  }
  MPI_Put(notice, 1, MPI_BYTE, peer, 0, 1, MPI_BYTE, notice_win_);
}

void RmaWindows::fence(int peer) { MPI_Win_fence(0, pair_with(peer).win); }

void RmaWindows::refresh() {
  if (notice_win_ == MPI_WIN_NULL) {
    MPI_Win_sync(all_);
    return;
  }
  MPI_Win_sync(notice_win_);
  // Open MPI 4.1's osc pt2pt, the one that takes GPU memory, moves a put's bytes as messages that
  // the target's MPI must progress, which MPI_Win_sync does not do: a probe does.
  int any = 0;
  MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, comm_, &any, MPI_STATUS_IGNORE);
}

std::string RmaWindows::description() const {
  const std::string all = " over all " + std::to_string(ranks_) + " ranks, ";
  if (on_device_) {
    const std::string region = std::to_string(bytes_) + " bytes of GPU memory a rank (receive pool)";
    if (sync_ == OneSidedSync::flush)
      return "MPI_Win_create over the GPU receive pool" + all + region + "; the notice areas a window of their own "
             "(MPI_Win_allocate, host memory)";
    return "MPI_Win_create over the GPU receive pool, one window per partner over a communicator of the two (" +
           std::to_string(pairs_.size()) + " here), " + region;
  }
  const std::string region = std::to_string(bytes_) + " bytes a rank (receive pool and notice area)";
  if (sync_ == OneSidedSync::flush) return "MPI_Win_allocate" + all + region;
  return "MPI_Win_create over MPI_Alloc_mem memory, one window per partner over a communicator of the two (" +
         std::to_string(pairs_.size()) + " here), " + region;
}

std::string RmaWindows::refresh_description() const {
  return notice_win_ == MPI_WIN_NULL ? "MPI_Win_sync" : "MPI_Win_sync on the notice window, and MPI_Iprobe for progress";
}

std::string RmaWindows::memory_model() const {
  const MPI_Win win = all_ != MPI_WIN_NULL ? all_ : pairs_.empty() ? MPI_WIN_NULL : pairs_.front().win;
  if (win == MPI_WIN_NULL) return "none (an idle rank has no window)";
  int* model = nullptr;
  int found = 0;
  MPI_Win_get_attr(win, MPI_WIN_MODEL, &model, &found);
  if (found == 0) return "not reported";
  return *model == MPI_WIN_UNIFIED ? "unified (MPI_WIN_UNIFIED: one copy of the window)"
                                   : "separate (MPI_WIN_SEPARATE: public and private copies)";
}

}  // namespace npgpu
