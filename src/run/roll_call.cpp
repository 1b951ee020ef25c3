#include "run/roll_call.hpp"

#include <chrono>
#include <thread>

namespace npgpu {
namespace {
constexpr int kReportTag = 1;
constexpr int kFirstPauseMicroseconds = 10;
constexpr int kLongestPauseMicroseconds = 1000;
}

RollCall::RollCall(const Team& team) : team_(team) {
  MPI_Comm_dup(team.comm(), &comm_);
  const auto ranks = static_cast<std::size_t>(team_.size());
  reached_.assign(ranks, 0);
  inbox_.assign(ranks, 0);
  receives_.assign(ranks, MPI_REQUEST_NULL);
  sends_.assign(ranks, MPI_REQUEST_NULL);
  for (int rank = 0; rank < team_.size(); ++rank)
    if (rank != team_.rank()) post_receive(rank);
}

RollCall::~RollCall() {
  for (MPI_Request& receive : receives_)
    if (receive != MPI_REQUEST_NULL) {
      MPI_Cancel(&receive);
      MPI_Wait(&receive, MPI_STATUS_IGNORE);
    }
  MPI_Waitall(static_cast<int>(sends_.size()), sends_.data(), MPI_STATUSES_IGNORE);
  MPI_Comm_free(&comm_);
}

void RollCall::post_receive(int rank) {
  const auto r = static_cast<std::size_t>(rank);
  MPI_Irecv(&inbox_[r], 1, MPI_UINT64_T, rank, kReportTag, comm_, &receives_[r]);
}

void RollCall::report() {
  MPI_Waitall(static_cast<int>(sends_.size()), sends_.data(), MPI_STATUSES_IGNORE);
  sent_step_ = step_;
  for (int rank = 0; rank < team_.size(); ++rank)
    if (rank != team_.rank())
      MPI_Isend(&sent_step_, 1, MPI_UINT64_T, rank, kReportTag, comm_, &sends_[static_cast<std::size_t>(rank)]);
}

void RollCall::collect_reports() {
  std::vector<int> arrived(receives_.size());
  int count = 0;
  MPI_Testsome(static_cast<int>(receives_.size()), receives_.data(), &count, arrived.data(), MPI_STATUSES_IGNORE);
  if (count == MPI_UNDEFINED) return;
  for (int i = 0; i < count; ++i) {
    const int rank = arrived[static_cast<std::size_t>(i)];
    reached_[static_cast<std::size_t>(rank)] = inbox_[static_cast<std::size_t>(rank)];
    post_receive(rank);
  }
}

void RollCall::wait(MPI_Request& request, double bound, Polling polling,
                    const std::function<void(const std::vector<int>&)>& name_missing) {
  ++step_;
  const auto report_at = std::chrono::steady_clock::now() +
                         std::chrono::duration_cast<std::chrono::steady_clock::duration>(std::chrono::duration<double>(bound / 4));
  bool reported = false;
  std::vector<int> missing;
  // Ranks may share cores (8 ranks on 2 here): an idle rank sleeps between tests, longer the
  // longer it waits (up to 1 ms: a trial lasts 10), so the ranks that measure keep the cores;
  // spinning, idle ranks had made 8 B cells read milliseconds.
  auto pause = std::chrono::microseconds(kFirstPauseMicroseconds);
  for (;;) {
    int done = 0;
    MPI_Test(&request, &done, MPI_STATUS_IGNORE);
    if (done != 0) return;
    if (polling == Polling::sleeping) {
      std::this_thread::sleep_for(pause);
      pause = std::min(2 * pause, std::chrono::microseconds(kLongestPauseMicroseconds));
    } else {
      std::this_thread::yield();  // let a rank that shares this core run
    }
    if (std::chrono::steady_clock::now() < report_at) continue;
    if (!reported) report();
    reported = true;
    collect_reports();
    std::vector<int> late;
    for (int rank = 0; rank < team_.size(); ++rank)
      if (rank != team_.rank() && reached_[static_cast<std::size_t>(rank)] < step_) late.push_back(rank);
    if (late != missing) name_missing(missing = late);
  }
}

}  // namespace npgpu
