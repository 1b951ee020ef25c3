// A cluster's file system as npgpu would meet it, preloaded (LD_PRELOAD) into the npgpu the tests
// start, its HDF5 library included (HDF5 1.10 locks files with flock). Each environment variable
// turns on one behaviour; unset, the call is the C library's.
//   NPGPU_SHIM_FLOCK_ERRNO=ENOSYS|ENOLCK|EOPNOTSUPP|EINVAL   every flock() fails with that error
//   NPGPU_SHIM_FILE_SYSTEM=nfs|lustre                         statfs() says that file system
//   NPGPU_SHIM_STALL_RECORD_COPY=SECONDS|forever              renaming a record's copy (*.tmp) over
//       the record waits that long first: a writer holding the record's lock as long as a test needs
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/vfs.h>
#include <unistd.h>

static int named_errno(const char* name) {
  static const struct {
    const char* name;
    int value;
  } known[] = {{"ENOSYS", ENOSYS}, {"ENOLCK", ENOLCK}, {"EOPNOTSUPP", EOPNOTSUPP}, {"EINVAL", EINVAL}};
  for (size_t i = 0; i < sizeof known / sizeof known[0]; ++i)
    if (strcmp(name, known[i].name) == 0) return known[i].value;
  return EIO;
}

int flock(int fd, int operation) {
  const char* failure = getenv("NPGPU_SHIM_FLOCK_ERRNO");
  if (failure != NULL) {
    errno = named_errno(failure);
    return -1;
  }
  int (*real)(int, int) = (int (*)(int, int))dlsym(RTLD_NEXT, "flock");
  return real(fd, operation);
}

static void pretend_file_system(struct statfs* about) {
  const char* name = getenv("NPGPU_SHIM_FILE_SYSTEM");
  if (name == NULL) return;
  if (strcmp(name, "nfs") == 0) about->f_type = 0x6969;
  if (strcmp(name, "lustre") == 0) about->f_type = 0x0BD00BD0;
}

int statfs(const char* path, struct statfs* about) {
  int (*real)(const char*, struct statfs*) = (int (*)(const char*, struct statfs*))dlsym(RTLD_NEXT, "statfs");
  const int result = real(path, about);
  if (result == 0) pretend_file_system(about);
  return result;
}

int rename(const char* from, const char* to) {
  const char* stall = getenv("NPGPU_SHIM_STALL_RECORD_COPY");
  const size_t length = strlen(from);
  if (stall != NULL && length > 4 && strcmp(from + length - 4, ".tmp") == 0) {
    if (strcmp(stall, "forever") == 0)
      for (;;) pause();
    sleep((unsigned)atoi(stall));
  }
  int (*real)(const char*, const char*) = (int (*)(const char*, const char*))dlsym(RTLD_NEXT, "rename");
  return real(from, to);
}
