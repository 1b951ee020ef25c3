#include "record/record_writer.hpp"

#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <filesystem>

#include "npgpu/errors.hpp"
#include "record/hdf5_record.hpp"
#include "record/record_lock.hpp"

namespace npgpu {
namespace fs = std::filesystem;
namespace {

// A writer's files are ".<record>.npgpu-<host>-<pid><suffix>"; the owner of one from this host
// whose process is gone will never come back for it.
struct LeftOver {
  fs::path file;
  bool lone_run;
  long pid;
};

std::vector<LeftOver> dead_writers_files(const std::string& path) {
  const std::string mine = private_name(path, "");
  const std::string prefix = mine.substr(0, mine.rfind('-') + 1);  // up to "<host>-"
  const fs::path directory = fs::path(prefix).parent_path();
  const std::string stem = fs::path(prefix).filename().string();
  std::vector<LeftOver> found;
  std::error_code error;
  for (const fs::directory_entry& entry : fs::directory_iterator(directory.empty() ? "." : directory, error)) {
    const std::string name = entry.path().filename().string();
    if (name.rfind(stem, 0) != 0) continue;
    std::size_t digits = 0;
    const long pid = std::strtol(name.c_str() + stem.size(), nullptr, 10);
    while (stem.size() + digits < name.size() && std::isdigit(static_cast<unsigned char>(name[stem.size() + digits]))) ++digits;
    const std::string suffix = name.substr(stem.size() + digits);
    const bool lone_run = suffix == ".run" || suffix == ".adopting";  // .adopting: its adopter died too
    if (digits == 0 || (!lone_run && suffix != ".tmp" && suffix != ".run.next" && suffix != ".lock-taken")) continue;
    if (kill(static_cast<pid_t>(pid), 0) == 0 || errno != ESRCH) continue;  // alive, or not ours to judge
    found.push_back({entry.path(), lone_run, pid});
  }
  return found;
}

}  // namespace

RecordWriter::RecordWriter(std::string path)
    : path_(std::move(path)), lone_run_(private_name(path_, ".run")), locking_(describe(record_locking(path_), path_)) {
  for (const LeftOver& left : dead_writers_files(path_)) {
    std::error_code ignored;
    if (!left.lone_run) {
      fs::remove(left.file, ignored);
      continue;
    }
    // Claimed first by a rename, which only one of the writers starting together can make, so
    // that the run is adopted once.
    const std::string claimed = private_name(path_, ".adopting");
    if (std::rename(left.file.c_str(), claimed.c_str()) != 0) continue;
    try {
      adopted_.push_back(adopt_run(path_, claimed,
                                   "the writer (process " + std::to_string(left.pid) +
                                       ") stopped before the run ended; the sizes it had finished are kept") +
                         " (from " + left.file.filename().string() + ")");
    } catch (const std::exception&) {
      // Killed while it was first being written: nothing of it can be read, nothing to keep.
    }
    fs::remove(claimed, ignored);
  }
}

void RecordWriter::snapshot(const RunRecord& record) { write_lone_run(lone_run_, record); }

std::string RecordWriter::finish(const RunRecord& record) {
  if (!finished_group_.empty()) return finished_group_;
  try {
    finished_group_ = write_run(path_, record);
  } catch (const RunError& error) {
    // A full disk, say: the lone-run file still holds every finished size; say where.
    throw RunError(std::string(error.what()) + "; the run's finished sizes are kept in " + lone_run_ +
                   ", which the next run writing to " + path_ + " adds to it");
  }
  std::error_code ignored;
  fs::remove(lone_run_, ignored);
  return finished_group_;
}

void SnapshotReporter::matrix_cells_done(const RunRecord& record, int, std::size_t, const Progress& progress) {
  const auto start = std::chrono::steady_clock::now();
  if (start < next_matrix_snapshot_ && progress.done < progress.total) return;
  writer_.snapshot(record);
  next_matrix_snapshot_ = start + 10 * (std::chrono::steady_clock::now() - start);
}

}  // namespace npgpu
