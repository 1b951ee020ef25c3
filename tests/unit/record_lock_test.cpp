// How writers of one record take turns: flock where it works, else a lock file whose dead owner's
// lock is taken over, and which its owner keeps touching while it holds it.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "npgpu/errors.hpp"
#include "record/record_lock.hpp"
#include "support/command.hpp"

namespace npgpu {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

const RecordLocking kLockFile{true, "a test", "HDF5's own file locking on"};

std::string text_of(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// A pid no process has: a child's, once it has exited and been reaped.
pid_t dead_pid() {
  const pid_t child = fork();
  if (child == 0) _exit(0);
  waitpid(child, nullptr, 0);
  return child;
}

TEST(RecordLock, FlockOnTheFolderWhereItWorks) {
  test::TempDir dir;
  const std::string record = dir.file("r.h5");
  ASSERT_EQ(flock_failure(dir.path()), "");
  const RecordLocking locking = record_locking(record);
  EXPECT_FALSE(locking.lock_file) << locking.why;
  EXPECT_EQ(describe(locking, record).rfind("writers take turns by flock on its folder " + dir.path().string() + "; HDF5 ", 0), 0u)
      << describe(locking, record);
  { const RecordLock lock(record, locking); }
  EXPECT_TRUE(fs::is_empty(dir.path())) << "flock leaves nothing behind";
}

TEST(RecordLock, LockFileMakesTheNextWriterWaitAndGoesWithItsWriter) {
  test::TempDir dir;
  const std::string record = dir.file("r.h5");
  std::atomic<bool> second_has_it{false};
  std::thread second;
  {
    const RecordLock first(record, kLockFile);
    EXPECT_NE(text_of(lock_file_of(record)).find("host " + host_name() + "\npid " + std::to_string(getpid()) + "\n"),
              std::string::npos);
    second = std::thread([&] {
      const RecordLock lock(record, kLockFile);
      second_has_it = true;
    });
    std::this_thread::sleep_for(300ms);
    EXPECT_FALSE(second_has_it) << "a live owner's lock was taken";
  }
  second.join();
  EXPECT_TRUE(second_has_it);
  EXPECT_TRUE(fs::is_empty(dir.path()));
}

TEST(RecordLock, OwnerTouchesItsLockFileEverySecond) {
  test::TempDir dir;
  const std::string record = dir.file("r.h5");
  const RecordLock lock(record, kLockFile);
  struct stat before {}, after {};
  stat(lock_file_of(record).c_str(), &before);
  std::this_thread::sleep_for(1500ms);
  stat(lock_file_of(record).c_str(), &after);
  EXPECT_NE(before.st_mtim.tv_nsec + before.st_mtim.tv_sec * 1000000000LL,
            after.st_mtim.tv_nsec + after.st_mtim.tv_sec * 1000000000LL);
}

TEST(RecordLock, ALockWhoseOwnerIsGoneFromThisHostIsTakenOverAtOnce) {
  test::TempDir dir;
  const std::string record = dir.file("r.h5");
  const pid_t dead = dead_pid();
  std::ofstream(lock_file_of(record)) << "host " << host_name() << "\npid " << dead << "\ntoken 7\n";
  testing::internal::CaptureStdout();
  const auto start = std::chrono::steady_clock::now();
  {
    const RecordLock lock(record, kLockFile);
    EXPECT_LT(std::chrono::steady_clock::now() - start, 5s);
    EXPECT_NE(text_of(lock_file_of(record)).find("pid " + std::to_string(getpid())), std::string::npos);
  }
  EXPECT_EQ(testing::internal::GetCapturedStdout(),
            "npgpu: took over the record's lock " + lock_file_of(record) + " from process " + std::to_string(dead) +
                " on this host (" + host_name() + "), which is gone\n");
  EXPECT_TRUE(fs::is_empty(dir.path())) << "the lock moved aside is removed too";
}

TEST(RecordLock, AWriterWhoseLockWasTakenOverMustNotReplaceTheRecord) {
  test::TempDir dir;
  const std::string record = dir.file("r.h5");
  const RecordLock lock(record, kLockFile);
  EXPECT_NO_THROW(lock.confirm());
  fs::remove(lock_file_of(record));
  std::ofstream(lock_file_of(record)) << "host " << host_name() << "\npid 1\ntoken 8\n";
  EXPECT_THROW(lock.confirm(), RunError);
}

}  // namespace
}  // namespace npgpu
