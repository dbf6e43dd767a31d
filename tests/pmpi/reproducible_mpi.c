/* An unmodified MPI program whose double sums depend on the order of the additions: rank r
 * holds +B (r % 3 == 0), -B (r % 3 == 1) or a small integer (r % 3 == 2) per element, with B up
 * to 2^99, so a plain sum loses the small ones or not depending on the algorithm's order. Under
 * libpcoll_mpi.so with PCOLL_REPRODUCIBLE=on every algorithm must give the exact sum, correctly
 * rounded, for MPI_Allreduce (also in place), MPI_Reduce and MPI_Iallreduce + MPI_Wait.
 * Prints "reproducible: OK" on rank 0, or the first wrong element and exits 1. */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static double value(int r, int i) {
  const double big = ldexp(1.0, 70 + i % 30);
  if (r % 3 == 0) return big;
  if (r % 3 == 1) return -big;
  return (double)(1 + r + i % 17);
}

/* The exact sum, correctly rounded: the big ones cancel but for at most one, the small ones add
 * exactly, and one IEEE addition of the two rounds correctly. */
static double expected(int P, int i) {
  int plus = 0, minus = 0;
  double small = 0;
  for (int r = 0; r < P; ++r) {
    if (r % 3 == 0) ++plus;
    else if (r % 3 == 1) ++minus;
    else small += value(r, i);
  }
  return (double)(plus - minus) * ldexp(1.0, 70 + i % 30) + small;
}

static int check(const char *what, const double *out, int n, int P, int rank) {
  for (int i = 0; i < n; ++i)
    if (out[i] != expected(P, i)) {
      fprintf(stderr, "rank %d: %s element %d: %.17g, expected %.17g\n", rank, what, i, out[i],
              expected(P, i));
      return 1;
    }
  return 0;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, P;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &P);
  enum { n = 1000 };
  static double in[n], out[n];
  int bad = 0;
  for (int i = 0; i < n; ++i) in[i] = value(rank, i);
  MPI_Allreduce(in, out, n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  bad |= check("MPI_Allreduce", out, n, P, rank);
  for (int i = 0; i < n; ++i) out[i] = in[i];
  MPI_Allreduce(MPI_IN_PLACE, out, n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  bad |= check("MPI_Allreduce in place", out, n, P, rank);
  MPI_Request req;
  MPI_Iallreduce(in, out, n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &req);
  MPI_Wait(&req, MPI_STATUS_IGNORE);
  bad |= check("MPI_Iallreduce", out, n, P, rank);
  MPI_Reduce(in, out, n, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank == 0) bad |= check("MPI_Reduce", out, n, P, rank);
  int any = 0;
  MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (rank == 0) printf("reproducible: %s\n", any ? "WRONG" : "OK");
  MPI_Finalize();
  return any ? 1 : 0;
}
