/* The bare references for bench/rma.py: MPI_Put between two ranks with nothing around it, one window
   made by MPI_Win_allocate and locked once (MPI_Win_lock_all), one buffer reused (cache-warm). For
   each power of two from 1 B to the size given (default 4 MiB), two definitions of latency:
   - put_flush: a put and MPI_Win_flush, timed on the origin alone (osu_put_latency's);
   - half_rtt: a put and its flush, seen by the peer polling the message's last byte through
     MPI_Win_sync, then the peer's put of it back: half the round trip (npgpu mpiRma's pingpong).
   Prints "bytes put_flush_us half_rtt_us" per size: the mean of the fastest of 5 batches. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static double fastest(double a, double b) { return a < b ? a : b; }

/* The origin's put and flush, `iterations` times; the peer waits at the barrier. */
static double put_flush(int rank, char *source, int bytes, int iterations, MPI_Win win) {
  MPI_Barrier(MPI_COMM_WORLD);
  double seconds = 0;
  if (rank == 0) {
    double start = MPI_Wtime();
    for (int i = 0; i < iterations; ++i) {
      MPI_Put(source, bytes, MPI_BYTE, 1, 0, bytes, MPI_BYTE, win);
      MPI_Win_flush(1, win);
    }
    seconds = (MPI_Wtime() - start) / iterations;
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
  char *source = malloc(largest), *exposed = NULL;
  MPI_Win win;
  MPI_Win_allocate(largest, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &exposed, &win);
  memset(source, 0, largest);
  memset(exposed, 0, largest);
  MPI_Win_lock_all(MPI_MODE_NOCHECK, win);
  MPI_Win_sync(win);
  unsigned count = 0;
  for (int bytes = 1; bytes <= largest; bytes *= 2) {
    const int iterations = bytes <= 8192 ? 10000 : 1000;
    double one_way = 1e30, half = 1e30;
    put_flush(rank, source, bytes, iterations / 10, win);  /* warm-up */
    half_round_trip(rank, source, exposed, bytes, iterations / 10, win, &count);
    for (int batch = 0; batch < 5; ++batch) {
      one_way = fastest(one_way, put_flush(rank, source, bytes, iterations, win));
      half = fastest(half, half_round_trip(rank, source, exposed, bytes, iterations, win, &count));
    }
    if (rank == 0) printf("%d %.4f %.4f\n", bytes, one_way * 1e6, half * 1e6);
  }
  MPI_Win_unlock_all(win);
  MPI_Win_free(&win);
  free(source);
  MPI_Finalize();
  return 0;
}
