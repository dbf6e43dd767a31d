/* An unmodified MPI program for the preload demo (scripts/preload-demo.sh): plain MPI only. It
 * times MPI_Allreduce of COUNT doubles: warm-ups, then TRIALS trials of ITERS calls each after a
 * barrier; a trial's time per call is the slowest rank's. The result is checked exactly (the
 * inputs are small integers, so every association gives the same sum).
 *   allreduce_loop COUNT ITERS TRIALS */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int count = argc > 1 ? atoi(argv[1]) : 1;
  const int iters = argc > 2 ? atoi(argv[2]) : 200;
  const int trials = argc > 3 ? atoi(argv[3]) : 15;
  double *in = malloc(sizeof(double) * count), *out = malloc(sizeof(double) * count);
  for (int i = 0; i < count; ++i) in[i] = rank + i % 7;
  for (int w = 0; w < 20; ++w) MPI_Allreduce(in, out, count, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  int wrong = 0;
  for (int i = 0; i < count; ++i)
    wrong += out[i] != (double)size * (i % 7) + size * (size - 1) / 2.0;
  if (rank == 0) printf("allreduce_loop: P=%d count=%d (%d B) iters=%d\n", size, count,
                        (int)(count * sizeof(double)), iters);
  if (rank == 0) printf("per-call us:");
  for (int t = 0; t < trials; ++t) {
    MPI_Barrier(MPI_COMM_WORLD);
    const double t0 = MPI_Wtime();
    for (int k = 0; k < iters; ++k)
      MPI_Allreduce(in, out, count, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    double mine = (MPI_Wtime() - t0) / iters, slowest = 0;
    MPI_Reduce(&mine, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    if (rank == 0) printf(" %.3f", slowest * 1e6);
  }
  int any = 0;
  MPI_Allreduce(&wrong, &any, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) printf("\nresult: %s (out[0..2] = %g %g %g)\n", any ? "WRONG" : "exact", out[0],
                        count > 1 ? out[1] : 0.0, count > 2 ? out[2] : 0.0);
  free(in), free(out);
  MPI_Finalize();
  return any != 0;
}
