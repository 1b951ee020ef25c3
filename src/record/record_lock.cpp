#include "record/record_lock.hpp"

#include <fcntl.h>
#include <hdf5.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <sstream>

#include "npgpu/errors.hpp"

namespace npgpu {
namespace fs = std::filesystem;
namespace {

using Clock = std::chrono::steady_clock;
constexpr auto kTouchEvery = std::chrono::seconds(1);
constexpr auto kLookEvery = std::chrono::milliseconds(50);

// File systems several hosts mount (statfs's f_type). flock there may bind only the host that
// takes it (NFS mounted nolock or local_lock=flock, Lustre's localflock, FUSE without a lock
// handler), and it still succeeds, so nothing but the file system's kind can tell.
struct SharedFileSystem {
  unsigned long magic;
  const char* name;
};
constexpr SharedFileSystem kSharedFileSystems[] = {
    {0x6969, "NFS"},          {0x0BD00BD0, "Lustre"}, {0x47504653, "GPFS"},   {0x19830326, "BeeGFS"},
    {0x00C36400, "CephFS"},   {0xFF534D42, "CIFS"},   {0xFE534D42, "SMB"},    {0x65735546, "FUSE"},
    {0xAAD7AAEA, "PanFS"},    {0x20030528, "OrangeFS"}, {0x5346414F, "AFS"}, {0x6B414653, "AFS"},
    {0x01161970, "GFS2"},     {0x7461636F, "OCFS2"}};

const char* shared_file_system(const fs::path& directory) {
  struct statfs about {};
  if (statfs(directory.c_str(), &about) != 0) return nullptr;
  const unsigned long magic = static_cast<unsigned long>(about.f_type) & 0xFFFFFFFFul;
  for (const SharedFileSystem& known : kSharedFileSystems)
    if (known.magic == magic) return known.name;
  return nullptr;
}

std::string hdf5_locking_words(bool flock_works) {
  unsigned major = 0, minor = 0, release = 0;
  H5get_libversion(&major, &minor, &release);
  const std::string hdf5 = "HDF5 " + std::to_string(major) + "." + std::to_string(minor) + "." +
                           std::to_string(release) + "'s own file locking";
  if (const char* forced = std::getenv("HDF5_USE_FILE_LOCKING"))
    return hdf5 + " as HDF5_USE_FILE_LOCKING=" + forced + " says";
  return hdf5 + (flock_works ? " on" : " off (it locks with flock)");
}

// A lock file as a waiter saw it: what it says of its owner, and when the owner last touched it.
struct Sighting {
  bool exists = false;
  std::string text;  // "host H\npid P\ntoken T\n"
  std::int64_t touched_ns = 0;
  bool operator==(const Sighting&) const = default;
};

// Opened, not stat'ed: an NFS client revalidates what it caches of a file when it opens it.
Sighting look_at(const std::string& lock_file) {
  Sighting seen;
  const int fd = open(lock_file.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return seen;
  char text[512];
  const ssize_t got = read(fd, text, sizeof text);
  struct stat about {};
  fstat(fd, &about);
  close(fd);
  seen.exists = true;
  seen.text.assign(text, got > 0 ? static_cast<std::size_t>(got) : 0);
  seen.touched_ns = about.st_mtim.tv_sec * 1'000'000'000LL + about.st_mtim.tv_nsec;
  return seen;
}

struct Owner {
  std::string host;  // empty: the owner had not written its name yet
  long pid = 0;
};

Owner owner_of(const std::string& text) {
  Owner owner;
  std::istringstream in(text);
  for (std::string key, value; in >> key >> value;) {
    if (key == "host") owner.host = value;
    if (key == "pid") owner.pid = std::strtol(value.c_str(), nullptr, 10);
  }
  return owner;
}

std::string whose(const Owner& owner) {
  if (owner.host.empty()) return "a writer that had not written its name into it";
  return "process " + std::to_string(owner.pid) + " on " +
         (owner.host == host_name() ? "this host (" + owner.host + ")" : "host " + owner.host);
}

// Only a process of this host can be looked for; another host's pid means nothing here.
bool gone(const Owner& owner) {
  return owner.host == host_name() && owner.pid > 0 && kill(static_cast<pid_t>(owner.pid), 0) != 0 && errno == ESRCH;
}

// Whether the open file `fd` is still the one at `path`.
bool same_file(int fd, const std::string& path) {
  struct stat mine {}, there {};
  const int at_path = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  const bool same = at_path >= 0 && fstat(at_path, &there) == 0 && fstat(fd, &mine) == 0 &&
                    mine.st_ino == there.st_ino && mine.st_dev == there.st_dev;
  if (at_path >= 0) close(at_path);
  return same;
}

void say(const std::string& line) {
  std::printf("npgpu: %s\n", line.c_str());
  std::fflush(stdout);
}

// Moves the lock file aside if it is still the one `seen`: rename is atomic, so of several waiters
// that judged it dead one moves it. A lock taken meanwhile (another waiter removed the dead one and
// a writer made a new one) goes back where it was.
void take_over(const std::string& path, const Sighting& seen, const std::string& why) {
  const std::string lock_file = lock_file_of(path), aside = private_name(path, ".lock-taken");
  if (rename(lock_file.c_str(), aside.c_str()) != 0) return;  // released or moved already
  if (look_at(aside).text == seen.text) {
    say("took over the record's lock " + lock_file + " from " + why);
  } else if (link(aside.c_str(), lock_file.c_str()) != 0) {
    // A third writer made a lock meanwhile: the owner of the one moved aside finds it gone when
    // it confirms before replacing the record, and stops there.
  }
  unlink(aside.c_str());
}

}  // namespace

std::string host_name() {
  char name[256] = {};
  gethostname(name, sizeof name - 1);
  return name;
}

fs::path directory_of(const std::string& path) {
  const fs::path parent = fs::path(path).parent_path();
  return parent.empty() ? fs::path(".") : parent;
}

std::string private_name(const std::string& path, const std::string& suffix) {
  return (directory_of(path) / ("." + fs::path(path).filename().string() + ".npgpu-" + host_name() + "-" +
                                std::to_string(getpid()) + suffix))
      .string();
}

std::string lock_file_of(const std::string& path) {
  return (directory_of(path) / ("." + fs::path(path).filename().string() + ".npgpu-lock")).string();
}

std::string flock_failure(const fs::path& directory) {
  const int fd = open(directory.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return std::strerror(errno);
  // Held by another writer (EWOULDBLOCK) is working too; closing releases the probe's own lock.
  const int error = flock(fd, LOCK_SH | LOCK_NB) == 0 ? 0 : errno;
  close(fd);
  return error == 0 || error == EWOULDBLOCK ? "" : std::strerror(error);
}

std::string forced_hdf5_locking_fails(const std::string& path) {
  const char* forced = std::getenv("HDF5_USE_FILE_LOCKING");
  if (forced == nullptr || std::strcmp(forced, "FALSE") == 0 || std::strcmp(forced, "0") == 0) return "";
  const fs::path directory = directory_of(path);
  const std::string failure = flock_failure(directory);
  if (failure.empty()) return "";
  return std::string("HDF5_USE_FILE_LOCKING=") + forced + " has HDF5 lock its files with flock, which fails in '" +
         directory.string() + "' (" + failure + "); unset it, and npgpu turns HDF5's own locking off there";
}

RecordLocking record_locking(const std::string& path) {
  const fs::path directory = directory_of(path);
  const std::string failure = flock_failure(directory);
  RecordLocking locking;
  locking.hdf5_locking = hdf5_locking_words(failure.empty());
  if (!failure.empty()) {
    locking.lock_file = true;
    locking.why = "flock fails there: " + failure;
  } else if (const char* shared = shared_file_system(directory)) {
    locking.lock_file = true;
    locking.why = std::string("the folder is on ") + shared + ", where flock may bind one host only";
  }
  return locking;
}

std::string describe(const RecordLocking& locking, const std::string& path) {
  const std::string how = locking.lock_file ? "through the lock file " + lock_file_of(path) + " (" + locking.why + ")"
                                            : "by flock on its folder " + directory_of(path).string();
  return "writers take turns " + how + "; " + locking.hdf5_locking;
}

RecordLock::RecordLock(const std::string& path, const RecordLocking& locking) {
  if (locking.lock_file) {
    take_lock_file(path);
    return;
  }
  const fs::path directory = directory_of(path);
  fd_ = open(directory.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd_ < 0 || flock(fd_, LOCK_EX) != 0) {
    const std::string why = std::strerror(errno);
    if (fd_ >= 0) close(fd_);
    throw RunError("could not lock directory " + directory.string() + ": " + why);
  }
}

void RecordLock::take_lock_file(const std::string& path) {
  const std::string lock_file = lock_file_of(path);
  Sighting last;
  auto last_change = Clock::now();
  std::string announced;  // the other host's lock already named on the console
  while ((fd_ = open(lock_file.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644)) < 0) {
    if (errno != EEXIST) throw RunError("could not create the lock file " + lock_file + ": " + std::strerror(errno));
    const Sighting seen = look_at(lock_file);
    if (!seen.exists) continue;  // released in between
    if (!(seen == last)) {
      last = seen;
      last_change = Clock::now();
    }
    const Owner owner = owner_of(seen.text);
    if (gone(owner)) {
      take_over(path, seen, whose(owner) + ", which is gone");
    } else if (Clock::now() - last_change >= std::chrono::seconds(kQuietSeconds)) {
      take_over(path, seen, whose(owner) + ": no sign of life from it for " + std::to_string(kQuietSeconds) + " s");
    } else {
      if (!owner.host.empty() && owner.host != host_name() && seen.text != announced) {
        say("the record's lock " + lock_file + " is held by " + whose(owner) +
            "; this host cannot tell whether that process lives, so it waits for it to let go, or for " +
            std::to_string(kQuietSeconds) + " s without a sign of life from it");
        announced = seen.text;
      }
      std::this_thread::sleep_for(kLookEvery);
    }
  }
  lock_file_ = lock_file;
  const std::string owner = "host " + host_name() + "\npid " + std::to_string(getpid()) + "\ntoken " +
                            std::to_string(std::random_device{}()) + "\n";
  if (write(fd_, owner.data(), owner.size()) != static_cast<ssize_t>(owner.size()) || fsync(fd_) != 0) {
    const std::string why = std::strerror(errno);
    unlink(lock_file.c_str());
    close(fd_);
    throw RunError("could not write the lock file " + lock_file + ": " + why);
  }
  toucher_ = std::thread([this] { touch_until_released(); });
}

// The owner's sign of life. futimens with no times asks NFS for the server's clock, and waiters
// only look for a change, so clocks that disagree between hosts do not matter.
void RecordLock::touch_until_released() {
  std::unique_lock<std::mutex> hold(mutex_);
  while (!released_.wait_for(hold, kTouchEvery, [this] { return releasing_; })) futimens(fd_, nullptr);
}

void RecordLock::confirm() const {
  if (!lock_file_.empty() && !same_file(fd_, lock_file_))
    throw RunError("the record's lock " + lock_file_ + " was taken over while this writer held it (stopped for over " +
                   std::to_string(kQuietSeconds) + " s?); the record was left as it was");
}

RecordLock::~RecordLock() {
  if (toucher_.joinable()) {
    {
      const std::lock_guard<std::mutex> hold(mutex_);
      releasing_ = true;
    }
    released_.notify_one();
    toucher_.join();
    if (same_file(fd_, lock_file_)) unlink(lock_file_.c_str());  // else another writer's, after a takeover
  }
  close(fd_);
}

}  // namespace npgpu
