#pragma once
// What stops a run that cannot go on, on every rank: a wait past its bound (a peer that stopped
// answering, a GPU that never finishes) and SIGTERM or SIGINT (a batch system's time limit,
// Ctrl-C). Rank 0 then saves what was measured (RecordWriter: every finished size, the run marked
// failed or incomplete, with why), each rank says in one line what it was waiting for, and exits
// with the code of what happened (kExitTimeout, kExitInterrupted).
#include <atomic>
#include <chrono>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

#include "results/run_record.hpp"
#include "record/record_writer.hpp"

namespace npgpu {

inline constexpr int kExitTimeout = 3;
inline constexpr int kExitInterrupted = 4;

// Before MPI_Init, in main's thread: SIGTERM and SIGINT then reach only the guard's thread, whatever
// threads MPI starts (they inherit the mask).
void hold_stop_signals();

class RunGuard {
 public:
  explicit RunGuard(int rank);
  ~RunGuard();
  RunGuard(const RunGuard&) = delete;
  RunGuard& operator=(const RunGuard&) = delete;

  // Rank 0: what to save if the run is stopped. `lock` guards the record while the run changes it.
  // forget() before they go (GuardedRecord does): a signal after the run left must not reach them.
  void protect(RunRecord& record, RecordWriter& writer, std::mutex& lock);
  void forget();

  // The next wait must end within `seconds`; `waiting_for` says what it waits for, in words
  // ("rank 1 (host b) in a trial of mpi, pingpong, 1 MiB"). Replaces the previous bound.
  void expect(double seconds, std::string waiting_for);
  // A wait that other ranks' guards bound (the load ranks wait through the victims' sweep, each of
  // whose waits is bounded): no deadline here, but a signal that stops the run names it.
  void await_others(std::string waiting_for);
  void retell(std::string waiting_for);  // the same wait and bound, better said (who is missing)
  void idle();                          // no wait bounded until the next expect()

  // Called before the process exits on a timeout, from the guard's thread (NCCL's abort).
  void on_timeout(std::function<void()> abort_waits);

 private:
  void watch();
  std::string waiting_text();  // " while waiting for ...", or nothing between waits
  [[noreturn]] void stop(int code, const std::string& line, RunStatus status, const std::string& reason);

  int rank_;
  std::mutex mutex_;  // guards the fields below
  std::chrono::steady_clock::time_point deadline_{};
  bool armed_ = false;
  double bound_seconds_ = 0;
  std::string waiting_for_;
  std::function<void()> abort_waits_;
  RunRecord* record_ = nullptr;
  RecordWriter* writer_ = nullptr;
  std::mutex* record_lock_ = nullptr;
  std::atomic<bool> done_{false};
  std::thread thread_;
};

// Rank 0's record, saved by the guard if the run is stopped while this object lives.
class GuardedRecord {
 public:
  GuardedRecord(RunGuard& guard, RunRecord& record, RecordWriter& writer, std::mutex& lock) : guard_(guard) {
    guard_.protect(record, writer, lock);
  }
  ~GuardedRecord() { guard_.forget(); }
  GuardedRecord(const GuardedRecord&) = delete;
  GuardedRecord& operator=(const GuardedRecord&) = delete;

 private:
  RunGuard& guard_;
};

// A module's abort (on_timeout) while this object lives: declared after the module, it goes first,
// so a bound passed later (the load's answers, after the victims' run) never reaches a module gone.
class GuardedAbort {
 public:
  GuardedAbort(RunGuard& guard, std::function<void()> abort_waits) : guard_(guard) {
    guard_.on_timeout(std::move(abort_waits));
  }
  ~GuardedAbort() { guard_.on_timeout({}); }
  GuardedAbort(const GuardedAbort&) = delete;
  GuardedAbort& operator=(const GuardedAbort&) = delete;

 private:
  RunGuard& guard_;
};

}  // namespace npgpu
