/* The bare references for bench/rma.py: one-sided operations between two ranks with nothing around
   them, one window made by MPI_Win_allocate and locked once (MPI_Win_lock_all), buffers reused
   (cache-warm). For each power of two from 1 B to the size given (default 4 MiB):
   - put_flush: a put and MPI_Win_flush, timed on the origin alone (osu_put_latency's);
   - half_rtt: a put and its flush, seen by the peer polling the message's last byte through
     MPI_Win_sync, then the peer's put of it back: half the round trip (npgpu mpiRma's pingpong);
   - get_flush: a get and its flush (osu_get_latency's operation);
   - window_one_slot: 64 puts of the message to one place and a flush (npgpu's warm stream);
   - window_slots: 64 puts to 64 places side by side and a flush (osu_put_bw's window, whose
     buffers span 64 messages);
   - window_polled: window_one_slot while the target polls a byte of its window through
     MPI_Win_sync, as npgpu's target polls for the notice that closes a window (OSU's target, as
     the others here, waits in MPI_Barrier);
   - get_tagged: get_flush with what npgpu mpiRma's get adds around it on host memory: the first and
     last byte of the destination armed before the get, and checked after its flush for having
     been replaced, so that a get that moved nothing is caught.
   Prints "bytes" and those seven in us per size: each the fastest of 5 batches' means. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static double fastest(double a, double b) { return a < b ? a : b; }

#define WINDOW 64 /* osu_put_bw's */

enum operation { PUT, GET, WINDOW_ONE_SLOT, WINDOW_SLOTS, WINDOW_POLLED, GET_TAGGED };

static int is_window(enum operation op) { return op == WINDOW_ONE_SLOT || op == WINDOW_SLOTS || op == WINDOW_POLLED; }

#define ARMED ((char)0xFF) /* never in the exposed memory: zeros and round-trip counts 1 to 127 */
static volatile unsigned untouched; /* gets that left an armed byte: kept, so the check stays */

/* One iteration of `op` by the origin, ending with its flush. */
static void one(enum operation op, char *local, int bytes, MPI_Win win) {
  switch (op) {
    case PUT: MPI_Put(local, bytes, MPI_BYTE, 1, 0, bytes, MPI_BYTE, win); break;
    case GET_TAGGED: local[0] = local[bytes - 1] = ARMED; /* fall through */
    case GET: MPI_Get(local, bytes, MPI_BYTE, 1, 0, bytes, MPI_BYTE, win); break;
    case WINDOW_ONE_SLOT:
    case WINDOW_SLOTS:
    case WINDOW_POLLED:
      for (int j = 0; j < WINDOW; ++j) {
        const int slot = op == WINDOW_SLOTS ? j * bytes : 0;
        MPI_Put(local + slot, bytes, MPI_BYTE, 1, slot, bytes, MPI_BYTE, win);
      }
      break;
  }
  MPI_Win_flush(1, win);
  if (op == GET_TAGGED && (local[0] == ARMED || local[bytes - 1] == ARMED)) ++untouched;
}

/* The origin's `op`, `iterations` times, timed on the origin alone. The peer waits at the barrier,
   or for WINDOW_POLLED polls `flag` (a byte of its window past the messages) until the origin's
   put after its timed loop lands there with the next count (1 to 127, never what it held). */
static double origin_seconds(int rank, enum operation op, char *local, int bytes, int iterations, MPI_Win win,
                             char *flag, MPI_Aint flag_at) {
  static unsigned count = 0;
  const char tag = (char)(1 + count++ % 127);
  MPI_Barrier(MPI_COMM_WORLD);
  double seconds = 0;
  if (rank == 0) {
    double start = MPI_Wtime();
    for (int i = 0; i < iterations; ++i) one(op, local, bytes, win);
    seconds = (MPI_Wtime() - start) / iterations;
    if (op == WINDOW_POLLED) {
      MPI_Put(&tag, 1, MPI_BYTE, 1, flag_at, 1, MPI_BYTE, win);
      MPI_Win_flush(1, win);
    }
  } else if (op == WINDOW_POLLED) {
    do MPI_Win_sync(win); while (*(volatile char *)flag != tag);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  return seconds;
}

/* Round trips: rank 0 puts, rank 1 polls the last byte, puts the message back from where it
   landed, rank 0 polls. The last byte counts the round trips (1 to 127, never the 0 the buffers
   start with), so what it held before never passes for the next message. */
static double half_round_trip(int rank, char *source, char *exposed, int bytes, int iterations, MPI_Win win,
                              unsigned *count) {
  volatile char *last = exposed + bytes - 1;
  MPI_Barrier(MPI_COMM_WORLD);
  double start = MPI_Wtime();
  for (int i = 0; i < iterations; ++i) {
    const char tag = (char)(1 + (*count)++ % 127);
    if (rank == 0) {
      source[bytes - 1] = tag;
      MPI_Put(source, bytes, MPI_BYTE, 1, 0, bytes, MPI_BYTE, win);
      MPI_Win_flush(1, win);
      do MPI_Win_sync(win); while (*last != tag);
    } else {
      do MPI_Win_sync(win); while (*last != tag);
      MPI_Put(exposed, bytes, MPI_BYTE, 0, 0, bytes, MPI_BYTE, win);
      MPI_Win_flush(0, win);
    }
  }
  return (MPI_Wtime() - start) / iterations / 2;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  const int largest = argc > 1 ? atoi(argv[1]) : 1 << 22;
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const size_t span = (size_t)largest * WINDOW;
  char *source = malloc(span), *exposed = NULL;
  MPI_Win win;
  MPI_Win_allocate((MPI_Aint)span + 1, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &exposed, &win);  /* + the flag */
  memset(source, 0, span);
  memset(exposed, 0, span + 1);
  MPI_Win_lock_all(MPI_MODE_NOCHECK, win);
  MPI_Win_sync(win);
  unsigned count = 0;
  const enum operation origin_ops[] = {PUT, GET, WINDOW_ONE_SLOT, WINDOW_SLOTS, WINDOW_POLLED, GET_TAGGED};
  enum { OPS = sizeof origin_ops / sizeof origin_ops[0] };
  for (int bytes = 1; bytes <= largest; bytes *= 2) {
    const int iterations = bytes <= 8192 ? 10000 : 1000;
    double half = 1e30, origin[OPS];
    for (int k = 0; k < OPS; ++k) origin[k] = 1e30;
    for (int batch = -1; batch < 5; ++batch) { /* batch -1: a warm-up of a tenth */
      const int each = batch < 0 ? iterations / 10 : iterations;
      for (int k = 0; k < OPS; ++k) {
        const int windows = is_window(origin_ops[k]) ? (each / WINDOW > 10 ? each / WINDOW : 10) : each;
        const double seconds = origin_seconds(rank, origin_ops[k], source, bytes, windows, win, exposed + span,
                                              (MPI_Aint)span);
        if (batch >= 0) origin[k] = fastest(origin[k], seconds);
      }
      const double seconds = half_round_trip(rank, source, exposed, bytes, each, win, &count);
      if (batch >= 0) half = fastest(half, seconds);
    }
    if (rank == 0)
      printf("%d %.4f %.4f %.4f %.4f %.4f %.4f %.4f\n", bytes, origin[0] * 1e6, half * 1e6, origin[1] * 1e6,
             origin[2] * 1e6, origin[3] * 1e6, origin[4] * 1e6, origin[5] * 1e6);
  }
  if (untouched != 0) fprintf(stderr, "bare_rma: %u gets left an armed byte\n", untouched);
  MPI_Win_unlock_all(win);
  MPI_Win_free(&win);
  free(source);
  MPI_Finalize();
  return 0;
}
