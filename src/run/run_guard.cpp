#include "run/run_guard.hpp"

#include <signal.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>

#include "npgpu/sizes.hpp"

namespace npgpu {
namespace {

constexpr std::chrono::seconds kSaveGrace{2};

sigset_t stop_signals() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGINT);
  return set;
}

std::size_t sizes_saved(const RunRecord& record) {
  std::size_t sizes = 0;
  for (const Curve& curve : record.curves) sizes += curve.sizes.size();
  for (const std::vector<SizeResult>& cells : record.matrix.cells)
    for (const SizeResult& cell : cells) sizes += cell.trial_seconds.empty() ? 0 : 1;
  return sizes;
}

}  // namespace

void hold_stop_signals() {
  const sigset_t set = stop_signals();
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
}

RunGuard::RunGuard(int rank) : rank_(rank), thread_([this] { watch(); }) {}

RunGuard::~RunGuard() {
  done_ = true;
  thread_.join();
}

void RunGuard::protect(RunRecord& record, RecordWriter& writer, std::mutex& lock) {
  const std::lock_guard<std::mutex> hold(mutex_);
  record_ = &record;
  writer_ = &writer;
  record_lock_ = &lock;
}

void RunGuard::forget() {
  const std::lock_guard<std::mutex> hold(mutex_);
  record_ = nullptr;
  writer_ = nullptr;
  record_lock_ = nullptr;
}

void RunGuard::expect(double seconds, std::string waiting_for) {
  const std::lock_guard<std::mutex> hold(mutex_);
  deadline_ = std::chrono::steady_clock::now() + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                                     std::chrono::duration<double>(seconds));
  bound_seconds_ = seconds;
  waiting_for_ = std::move(waiting_for);
  armed_ = true;
}

void RunGuard::await_others(std::string waiting_for) {
  const std::lock_guard<std::mutex> hold(mutex_);
  deadline_ = std::chrono::steady_clock::time_point::max();
  waiting_for_ = std::move(waiting_for);
  armed_ = true;
}

void RunGuard::retell(std::string waiting_for) {
  const std::lock_guard<std::mutex> hold(mutex_);
  waiting_for_ = std::move(waiting_for);
}

void RunGuard::idle() {
  const std::lock_guard<std::mutex> hold(mutex_);
  armed_ = false;
}

void RunGuard::on_timeout(std::function<void()> abort_waits) {
  const std::lock_guard<std::mutex> hold(mutex_);
  abort_waits_ = std::move(abort_waits);
}

// Polls ten times a second: a signal is taken as soon as it comes, a bound is judged to 0.1 s.
void RunGuard::watch() {
  const sigset_t set = stop_signals();
  const timespec tick{0, 100'000'000};
  while (!done_) {
    siginfo_t info{};
    const int signal = sigtimedwait(&set, &info, &tick);
    if (signal == SIGTERM || signal == SIGINT) {
      const std::string name = signal == SIGTERM ? "SIGTERM" : "SIGINT";
      // mpirun also SIGTERMs the survivors when a rank dies: what each one waited for names the
      // rank that is gone.
      const std::string line = "interrupted by " + name + waiting_text();
      stop(kExitInterrupted, line, RunStatus::incomplete,
           line + (signal == SIGTERM ? " (a batch system's time limit, or mpirun stopping the job)" : ""));
    }
    std::unique_lock<std::mutex> hold(mutex_);
    if (!armed_ || std::chrono::steady_clock::now() < deadline_) continue;
    char bound[32];
    std::snprintf(bound, sizeof bound, "%.3g s", bound_seconds_);
    const std::string line = "no answer within " + std::string(bound) + " (--timeout) from " + waiting_for_;
    std::function<void()> abort_waits = abort_waits_;
    hold.unlock();
    if (abort_waits) abort_waits();
    stop(kExitTimeout, line, RunStatus::failed, "rank " + std::to_string(rank_) + ": " + line);
  }
}

std::string RunGuard::waiting_text() {
  const std::lock_guard<std::mutex> hold(mutex_);
  return armed_ ? " while waiting for " + waiting_for_ : std::string();
}

void RunGuard::stop(int code, const std::string& line, RunStatus status, const std::string& reason) {
  std::string saved;
  // Held until the process exits, so that forget() cannot return while the record is being saved.
  mutex_.lock();
  RunRecord* record = record_;
  RecordWriter* writer = writer_;
  std::mutex* record_lock = record_lock_;
  // Held until the process exits: the run adds no size after the save (the console would show a
  // size the record lacks).
  std::unique_lock<std::mutex> hold_record;
  if (record != nullptr) {
    hold_record = std::unique_lock<std::mutex>(*record_lock);
    record->status = status;
    record->status_reason = reason;
    try {
      saved = "; saved " + std::to_string(sizes_saved(*record)) + " finished sizes to " + record->options.output + " (" +
              writer->finish(*record) + ", marked " + status_name(status) + ")";
    } catch (const std::exception& error) {
      saved = std::string("; could not save what was measured: ") + error.what();
    }
  }
  std::fprintf(stderr, "npgpu: rank %d: %s%s\n", rank_, line.c_str(), saved.c_str());
  std::fflush(stderr);
  std::fflush(stdout);
  // mpirun stops the whole job as soon as one rank exits: the others, having said why they stop,
  // give rank 0 a moment to reach the same end itself (the same signal, or its own bound: it
  // starts each wait a little later, after writing the size) and save it as such.
  if (rank_ != 0) std::this_thread::sleep_for(kSaveGrace);
  _exit(code);
}

}  // namespace npgpu
