/* An unmodified MPI program using nonblocking and persistent collectives, completed with MPI's
 * own MPI_Wait / MPI_Waitall / MPI_Test / MPI_Waitany mixed with point-to-point requests. Run
 * under libpcoll_mpi.so (tests/pmpi/CMakeLists.txt) and without it: exact integer results, and
 * the double sums of MPI_Iallreduce and of the persistent allreduce (MPIX_Allreduce_init under
 * Open MPI 4.1, MPI_Allreduce_init under MPI 4) bit-identical to MPI_Allreduce's on the same
 * data when pcoll serves both (argument "same-bits"). It says which library MPI_Iallreduce and
 * MPI_Wait come from ("served by"), so the test can check that the preload took them, and the
 * thread level MPI_Init gave (libpcoll_mpi.so asks for MPI_THREAD_MULTIPLE when
 * PCOLL_PROGRESS=thread wants its progress thread). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <mpi.h>

#include "expect.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#if defined(__has_include)
#if __has_include(<mpi-ext.h>)
#include <mpi-ext.h>
#endif
#endif

#define N 1000

static int failures = 0;

static double value(int r, int i, int seed) {
  const double mag = (i + r + seed) % 3 == 0 ? 1e12 : (i % 2 ? 1e-7 : 1.0);
  return mag / (double)(1 + (r * 31 + i * 7 + seed * 13) % 97);
}

static const char *library_of(void *f) {
  Dl_info info;
  if (dladdr(f, &info) == 0 || info.dli_fname == NULL) return "?";
  return info.dli_fname;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  const int same_bits = argc > 1 && strcmp(argv[1], "same-bits") == 0;
  int me = 0, P = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &P);
  if (me == 0)
    printf("served by: MPI_Iallreduce %s, MPI_Wait %s\n", library_of((void *)&MPI_Iallreduce),
           library_of((void *)&MPI_Wait));
  /* The thread level MPI_Init gave: MPI_THREAD_MULTIPLE under libpcoll_mpi.so with
     PCOLL_PROGRESS=thread (its progress thread needs it). */
  int level = MPI_THREAD_SINGLE;
  MPI_Query_thread(&level);
  if (me == 0) printf("thread level: %s\n", level == MPI_THREAD_MULTIPLE ? "multiple" : "lower");

  double *in = malloc(N * sizeof(double)), *nb = malloc(N * sizeof(double)),
         *bl = malloc(N * sizeof(double)), *ps = malloc(N * sizeof(double));
  for (int i = 0; i < N; ++i) in[i] = value(me, i, 0);
  MPI_Allreduce(in, bl, N, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);

  /* Iallreduce + Ialltoall + Ibcast + a ring of point-to-point messages in one MPI_Waitall. */
  int *a2a_in = malloc((size_t)P * 3 * sizeof(int)), *a2a_out = malloc((size_t)P * 3 * sizeof(int));
  for (int i = 0; i < 3 * P; ++i) a2a_in[i] = me * 1000 + i;
  int bc[5] = {0, 0, 0, 0, 0};
  if (me == 0)
    for (int i = 0; i < 5; ++i) bc[i] = 40 + i;
  int token = me, got = -1;
  MPI_Request reqs[5];
  MPI_Iallreduce(in, nb, N, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &reqs[0]);
  MPI_Ialltoall(a2a_in, 3, MPI_INT, a2a_out, 3, MPI_INT, MPI_COMM_WORLD, &reqs[1]);
  MPI_Ibcast(bc, 5, MPI_INT, 0, MPI_COMM_WORLD, &reqs[2]);
  MPI_Irecv(&got, 1, MPI_INT, (me + P - 1) % P, 3, MPI_COMM_WORLD, &reqs[3]);
  MPI_Isend(&token, 1, MPI_INT, (me + 1) % P, 3, MPI_COMM_WORLD, &reqs[4]);
  MPI_Waitall(5, reqs, MPI_STATUSES_IGNORE);
  for (int i = 0; i < 5; ++i) EXPECT(reqs[i] == MPI_REQUEST_NULL, "request %d not freed", i);
  for (int q = 0; q < P; ++q)
    for (int k = 0; k < 3; ++k)
      EXPECT(a2a_out[q * 3 + k] == q * 1000 + me * 3 + k, "alltoall block %d wrong", q);
  for (int i = 0; i < 5; ++i) EXPECT(bc[i] == 40 + i, "bcast wrong");
  EXPECT(got == (me + P - 1) % P, "point-to-point wrong");
  if (same_bits) EXPECT(memcmp(nb, bl, N * sizeof(double)) == 0, "Iallreduce bits differ");

  /* An integer Iallreduce polled with MPI_Test, and an Ibarrier with MPI_Waitany. */
  long long x = me + 1, sum = 0;
  MPI_Request r;
  MPI_Iallreduce(&x, &sum, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD, &r);
  int flag = 0;
  while (!flag) MPI_Test(&r, &flag, MPI_STATUS_IGNORE);
  EXPECT(sum == (long long)P * (P + 1) / 2, "polled Iallreduce: %lld", sum);
  MPI_Ibarrier(MPI_COMM_WORLD, &r);
  int idx = -1;
  MPI_Waitany(1, &r, &idx, MPI_STATUS_IGNORE);
  EXPECT(idx == 0, "Waitany index %d", idx);

  /* A persistent allreduce started 20 times with new contents. */
#if MPI_VERSION >= 4
#define ALLREDUCE_INIT MPI_Allreduce_init
#elif defined(OMPI_HAVE_MPI_EXT_PCOLLREQ) && OMPI_HAVE_MPI_EXT_PCOLLREQ
#define ALLREDUCE_INIT MPIX_Allreduce_init
#endif
#ifdef ALLREDUCE_INIT
  MPI_Request pr;
  ALLREDUCE_INIT(in, ps, N, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &pr);
  for (int s = 1; s <= 20; ++s) {
    for (int i = 0; i < N; ++i) in[i] = value(me, i, s);
    MPI_Start(&pr);
    MPI_Wait(&pr, MPI_STATUS_IGNORE);
    EXPECT(pr != MPI_REQUEST_NULL, "the persistent request was freed by MPI_Wait");
    MPI_Allreduce(in, bl, N, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    if (same_bits) EXPECT(memcmp(ps, bl, N * sizeof(double)) == 0, "start %d: bits differ", s);
    for (int i = 0; i < N; ++i) {
      const double d = ps[i] - bl[i];
      EXPECT(d <= 1e-9 * (ps[i] > 0 ? ps[i] : -ps[i]) && -d <= 1e-9 * (ps[i] > 0 ? ps[i] : -ps[i]),
             "start %d: wrong sum", s);
      if (failures) break;
    }
  }
  MPI_Request_free(&pr);
  EXPECT(pr == MPI_REQUEST_NULL, "MPI_Request_free left the request");
  if (me == 0) printf("persistent: 20 starts\n");
#else
  if (me == 0) printf("persistent: this MPI has no persistent collectives\n");
#endif

  int all = 0;
  MPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (me == 0) printf(all == 0 ? "nonblocking: OK\n" : "nonblocking: %d failures\n", all);
  free(in); free(nb); free(bl); free(ps); free(a2a_in); free(a2a_out);
  MPI_Finalize();
  return all == 0 ? 0 : 1;
}
