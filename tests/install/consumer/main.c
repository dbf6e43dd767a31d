/* Uses the installed C API from C: one allreduce per algorithm, checked exactly. */
#include <pcoll/pcoll.h>
#include <stdio.h>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1, bad = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  for (int i = 0;; ++i) {
    const char *algo = PCOLL_Algorithm_name("allreduce", i);
    if (algo == NULL) break;
    double x[3] = {rank, 1, 2 * rank}, y[3] = {0, 0, 0};
    PCOLL_Config_push(MPI_COMM_WORLD, "allreduce", algo);
    PCOLL_Allreduce(x, y, 3, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    PCOLL_Config_pop(MPI_COMM_WORLD);
    const double s = size * (size - 1) / 2.0;
    if (y[0] != s || y[1] != size || y[2] != 2 * s) {
      fprintf(stderr, "consumer: %s gave a wrong sum\n", algo);
      bad = 1;
    }
  }
  if (rank == 0 && !bad) printf("consumer: pcoll %s installed package works\n", PCOLL_Version());
  MPI_Finalize();
  return bad;
}
