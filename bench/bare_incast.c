/* The bare reference for --load incast (docs/ARCHITECTURE.md, "Under load"): every other rank sends
   windows of messages to rank 0, which acknowledges each window, three ways:
     together  rank 0 posts the receives from every sender at once (a true many-to-one)
     in_turn   the senders send at once, rank 0 receives one sender's window after the other
               (npgpu's incast: its modules take one peer at a time)
     apart     one sender at a time, a barrier between them
   Prints rank 0's receive rate of each of 5 batches, in GB/s, after a warm-up batch.
   Usage: bare_incast MODE [MESSAGE_BYTES [WINDOW [CYCLES]]] (default 4 MiB x 4, 20 cycles). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { kData = 1, kAck = 2 };

static void send_window(char *buffer, int bytes, int window, MPI_Request *requests) {
  int ack;
  for (int i = 0; i < window; ++i) MPI_Isend(buffer, bytes, MPI_BYTE, 0, kData, MPI_COMM_WORLD, &requests[i]);
  MPI_Waitall(window, requests, MPI_STATUSES_IGNORE);
  MPI_Recv(&ack, 1, MPI_INT, 0, kAck, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
}

static void receive_windows(char *buffer, int bytes, int window, int first, int last, MPI_Request *requests) {
  int ack = 1, posted = 0;
  /* Each sender's window lands in its own part of the buffer, in every mode alike: the three touch
     the same memory, so none is faster for a warmer cache. */
  for (int sender = first; sender <= last; ++sender)
    for (int i = 0; i < window; ++i, ++posted)
      MPI_Irecv(buffer + ((size_t)(sender - 1) * window + i) * bytes, bytes, MPI_BYTE, sender, kData, MPI_COMM_WORLD,
                &requests[posted]);
  MPI_Waitall(posted, requests, MPI_STATUSES_IGNORE);
  for (int sender = first; sender <= last; ++sender) MPI_Send(&ack, 1, MPI_INT, sender, kAck, MPI_COMM_WORLD);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, ranks;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  const char *mode = argc > 1 ? argv[1] : "in_turn";
  const int bytes = argc > 2 ? atoi(argv[2]) : 4 << 20, window = argc > 3 ? atoi(argv[3]) : 4;
  const int cycles = argc > 4 ? atoi(argv[4]) : 20, senders = ranks - 1;
  const int together = strcmp(mode, "together") == 0, apart = strcmp(mode, "apart") == 0;
  char *buffer = calloc((size_t)senders * window, (size_t)bytes);
  MPI_Request *requests = calloc((size_t)senders * window, sizeof(MPI_Request));
  for (int batch = -1; batch < 5; ++batch) {
    MPI_Barrier(MPI_COMM_WORLD);
    const double start = MPI_Wtime();
    for (int cycle = 0; cycle < cycles; ++cycle) {
      if (rank == 0 && together) receive_windows(buffer, bytes, window, 1, senders, requests);
      for (int turn = 1; turn <= senders && !together; ++turn) {
        if (rank == 0) receive_windows(buffer, bytes, window, turn, turn, requests);
        if (rank == turn) send_window(buffer, bytes, window, requests);
        if (apart) MPI_Barrier(MPI_COMM_WORLD);
      }
      if (rank != 0 && together) send_window(buffer, bytes, window, requests);
    }
    const double seconds = MPI_Wtime() - start;
    if (rank == 0 && batch >= 0) printf("%.3f\n", (double)senders * window * bytes * cycles / seconds / 1e9);
  }
  free(requests);
  free(buffer);
  MPI_Finalize();
  return 0;
}
