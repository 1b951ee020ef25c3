/* The bare reference for bench/core.py: an 8-byte MPI ping-pong with nothing around it.
   Prints the mean one-way time of each of 7 batches, in microseconds, after a warm-up batch. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, iterations = argc > 1 ? atoi(argv[1]) : 20000;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  char message[8] = {0};
  for (int batch = -1; batch < 7; ++batch) {
    MPI_Barrier(MPI_COMM_WORLD);
    double start = MPI_Wtime();
    for (int i = 0; i < iterations; ++i) {
      if (rank == 0) MPI_Send(message, 8, MPI_BYTE, 1, 1, MPI_COMM_WORLD);
      MPI_Recv(message, 8, MPI_BYTE, 1 - rank, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      if (rank == 1) MPI_Send(message, 8, MPI_BYTE, 0, 1, MPI_COMM_WORLD);
    }
    double one_way = (MPI_Wtime() - start) / iterations / 2;
    if (rank == 0 && batch >= 0) printf("%.4f\n", one_way * 1e6);
  }
  MPI_Finalize();
  return 0;
}
