/* What the kernel's first copy of a page costs on this machine, against its second: two processes
 * move a pool through a socket pair (the kernel copies every byte out of the sender's pool and into
 * the receiver's), 1 MiB at a time from successive offsets, twice over, as npgpu's cache-cold
 * messages rotate over their pools. Both pools are filled by memset first, as npgpu fills its own:
 * no page fault lands in the passes. On a bare host both passes cost the same; on a VM that keeps
 * shadow page tables (PVM, `dmesg | grep PVM`), the kernel's first copy of each page traps to the
 * hypervisor. Then the same with each pool first written by the kernel (a read from /dev/zero).
 *
 *     cc -O2 -o /tmp/kernel_first_copy bench/kernel_first_copy.c && /tmp/kernel_first_copy [MiB] [launches]
 *
 * Prints a line a launch and a table last: us per MiB of each pass, the first over the second. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

enum { kMiB = 1 << 20 };

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void must(int ok, const char *what) {
  if (!ok) {
    perror(what);
    exit(1);
  }
}

/* A pool of `bytes`, every byte written by memset, and before it by the kernel where `by_kernel`. */
static char *pool(size_t bytes, int by_kernel) {
  char *memory = aligned_alloc(4096, bytes);
  must(memory != NULL, "aligned_alloc");
  if (by_kernel) {
    const int zero = open("/dev/zero", O_RDONLY);
    must(zero >= 0, "/dev/zero");
    for (size_t done = 0; done < bytes;) {
      const ssize_t got = read(zero, memory + done, bytes - done < kMiB ? bytes - done : kMiB);
      must(got > 0, "read /dev/zero");
      done += (size_t)got;
    }
    close(zero);
  }
  memset(memory, 0xA5, bytes);
  return memory;
}

static void whole(ssize_t (*move)(int, void *, size_t), int fd, char *at, size_t bytes) {
  for (size_t done = 0; done < bytes;) {
    const ssize_t moved = move(fd, at + done, bytes - done);
    must(moved > 0, "socket");
    done += (size_t)moved;
  }
}

static ssize_t send_some(int fd, void *at, size_t bytes) { return write(fd, at, bytes); }
static ssize_t receive_some(int fd, void *at, size_t bytes) { return read(fd, at, bytes); }

/* us per MiB of the two passes, into passes[0] and passes[1]. */
static void launch(size_t bytes, int by_kernel, double passes[2]) {
  int ends[2];
  must(socketpair(AF_UNIX, SOCK_STREAM, 0, ends) == 0, "socketpair");
  char ack = 'k';
  const pid_t child = fork();
  must(child >= 0, "fork");
  if (child == 0) { /* the receiver: its own pool, made after the fork, so no page is shared */
    close(ends[0]);
    char *in = pool(bytes, by_kernel);
    whole(send_some, ends[1], &ack, 1);
    for (int pass = 0; pass < 2; ++pass)
      for (size_t at = 0; at < bytes; at += kMiB) {
        whole(receive_some, ends[1], in + at, kMiB);
        whole(send_some, ends[1], &ack, 1);
      }
    _exit(0);
  }
  close(ends[1]);
  char *out = pool(bytes, by_kernel);
  whole(receive_some, ends[0], &ack, 1);
  for (int pass = 0; pass < 2; ++pass) {
    const double started = now();
    for (size_t at = 0; at < bytes; at += kMiB) {
      whole(send_some, ends[0], out + at, kMiB);
      whole(receive_some, ends[0], &ack, 1);
    }
    passes[pass] = (now() - started) / (double)(bytes / kMiB) * 1e6;
  }
  waitpid(child, NULL, 0);
  close(ends[0]);
  free(out);
}

int main(int argc, char **argv) {
  const size_t bytes = (size_t)(argc > 1 ? atoi(argv[1]) : 256) * kMiB;
  const int launches = argc > 2 ? atoi(argv[2]) : 3;
  const char *touch[2] = {"memset", "the kernel, then memset"};
  double passes[2][64][2];
  for (int l = 0; l < launches && l < 64; ++l)
    for (int k = 0; k < 2; ++k) {
      launch(bytes, k, passes[k][l]);
      printf("launch %d, pools first written by %s: %.0f, then %.0f us per MiB\n", l + 1, touch[k], passes[k][l][0],
             passes[k][l][1]);
    }
  printf("\n%-32s %-22s %-22s %s\n", "pools first written by", "first pass (us/MiB)", "second pass (us/MiB)", "first / second");
  for (int k = 0; k < 2; ++k)
    for (int l = 0; l < launches && l < 64; ++l)
      printf("%-32s %-22.0f %-22.0f %.1f\n", touch[k], passes[k][l][0], passes[k][l][1], passes[k][l][0] / passes[k][l][1]);
  return 0;
}
