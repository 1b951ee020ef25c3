#pragma once
// How writers of one record take turns, on whatever file system holds it, and the files they keep
// beside it. Where flock works on a folder of one host's own disk, an exclusive flock on the
// folder (the kernel drops it with its holder, so nothing is left behind). Where flock fails
// (Lustre mounted without it: ENOSYS; NFS without a lock manager: ENOLCK) or may bind one host
// only (NFS mounted nolock, Lustre's localflock: flock succeeds and other hosts never see it), a
// lock file created with O_EXCL, which NFS and Lustre honour across hosts; its owner's host and
// pid are inside, and the owner touches it every second, so a lock whose owner is gone (the pid,
// on this host; no touch for kQuietSeconds, on any host) is taken over. docs/ARCHITECTURE.md,
// "Surviving faults", says why.
#include <condition_variable>
#include <filesystem>
#include <mutex>
#include <string>
#include <thread>

namespace npgpu {

// A lock file untouched this long has lost its owner, whatever host it is on.
inline constexpr int kQuietSeconds = 15;

std::string host_name();

// The folder `path` is in ("." for a bare name).
std::filesystem::path directory_of(const std::string& path);

// The name of this process's own files beside `path`: ".<file>.npgpu-<host>-<pid><suffix>".
std::string private_name(const std::string& path, const std::string& suffix);

// The lock file of the record at `path`: ".<file>.npgpu-lock" beside it.
std::string lock_file_of(const std::string& path);

// Empty where flock works in `directory`, else what it answered ("No locks available").
std::string flock_failure(const std::filesystem::path& directory);

// Empty, or why HDF5 cannot open files beside `path`: HDF5_USE_FILE_LOCKING asks it to lock them
// with flock, which fails in that folder. HDF5 reads the variable over npgpu's choice, so every
// open there would fail.
std::string forced_hdf5_locking_fails(const std::string& path);

// How writers of the record at `path` take turns there; decided the same way on every host that
// sees the folder, so they all agree.
struct RecordLocking {
  bool lock_file = false;    // the lock file; false: flock on the folder
  std::string why;           // why the lock file, in words
  std::string hdf5_locking;  // what HDF5's own file locking does there, in words
};
RecordLocking record_locking(const std::string& path);

// One line for the console and the record: "writers take turns by flock on its folder; ...".
std::string describe(const RecordLocking& locking, const std::string& path);

// This writer's turn at the record at `path`: waits for it, taking over a lock whose owner is gone
// (and saying so on stdout), and holds it until destroyed.
class RecordLock {
 public:
  RecordLock(const std::string& path, const RecordLocking& locking);
  ~RecordLock();
  RecordLock(const RecordLock&) = delete;
  RecordLock& operator=(const RecordLock&) = delete;

  // Throws RunError unless the lock is still this writer's: a writer stopped (SIGSTOP, a frozen
  // node) for longer than kQuietSeconds may have been taken over, and must not replace the record.
  void confirm() const;

 private:
  void take_lock_file(const std::string& path);
  void touch_until_released();

  int fd_ = -1;            // the folder (flock) or the lock file
  std::string lock_file_;  // empty with flock
  std::mutex mutex_;
  std::condition_variable released_;
  bool releasing_ = false;
  std::thread toucher_;
};

}  // namespace npgpu
