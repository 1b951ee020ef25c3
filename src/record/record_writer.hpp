#pragma once
// Keeps every finished size of a run on disk (rank 0 only). While the run goes on, what it has
// measured is a lone-run file beside the record (".<record>.npgpu-<host>-<pid>.run"), replaced
// whole after each size; the run joins the record, marked complete, incomplete or failed, when it
// ends or is stopped. A writer killed outright (SIGKILL) leaves its lone-run file: the next run
// writing beside that record adopts it (marked failed, with why) and removes it, so nothing piles
// up over a campaign of killed jobs and the sizes it had finished still reach the record.
#include <chrono>
#include <string>
#include <vector>

#include "results/run_record.hpp"

namespace npgpu {

class RecordWriter {
 public:
  // Adopts what dead writers of `path` on this host left, then starts this run's file.
  explicit RecordWriter(std::string path);

  // The lone-run file now holds the run as measured so far.
  void snapshot(const RunRecord& record);

  // Adds the run to the record with its status, removes the lone-run file; the run's group. Once:
  // a later call (a signal during the save) returns the same group and writes nothing.
  std::string finish(const RunRecord& record);

  // What adoption added to the record, for the console ("/runs/0004: failed, ...").
  const std::vector<std::string>& adopted() const { return adopted_; }

  // How writers of the record take turns where it is, and what HDF5's own file locking does there.
  const std::string& locking() const { return locking_; }

 private:
  std::string path_;
  std::string lone_run_;
  std::string locking_;
  std::string finished_group_;
  std::vector<std::string> adopted_;
};

// A reporter that keeps the lone-run file up to date as sizes finish. Curves: after every size (a
// few hundred writes). The matrix: a dense N x N snapshot after each step of N - 1 would write
// O(N^3) bytes (108 TB at 4096 ranks), so it is rewritten only once ten times what the last one
// took has passed: snapshots cost at most a tenth of the run, and SIGKILL loses at most that tail
// (SIGTERM and timeouts save every cell).
class SnapshotReporter final : public Reporter {
 public:
  explicit SnapshotReporter(RecordWriter& writer) : writer_(writer) {}
  void begin(const RunRecord& record) override { writer_.snapshot(record); }
  void size_done(const RunRecord& record, std::size_t, std::size_t, const Progress&) override { writer_.snapshot(record); }
  void matrix_cells_done(const RunRecord& record, int, std::size_t, const Progress& progress) override;
  void end(const RunRecord&) override {}

 private:
  RecordWriter& writer_;
  std::chrono::steady_clock::time_point next_matrix_snapshot_{};
};

}  // namespace npgpu
