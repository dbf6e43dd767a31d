/* An unmodified MPI program calling the collectives pcoll has no algorithm for, which
 * libpcoll_mpi.so passes to the vendor and traces: MPI_Gather(v), Scatter(v), Scan, Exscan, Alltoallw, the five neighbourhood collectives (on a periodic 1-D Cartesian ring), and the nonblocking form of each, completed by MPI_Wait / MPI_Waitall. Every
 * result is checked exactly (integers). It prints "rest counts: NAME=N ..." (the calls it made
 * of each, per rank) and a checksum of every result, so the test can compare the trace with the
 * calls and a PCOLL_DISABLE=1 run with a run without the preload. */
#include <mpi.h>

#include "expect.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures = 0;
static unsigned long long checksum = 1469598103934665603ULL;
static void mix(const int *v, int n) {
  for (int i = 0; i < n; ++i) {
    checksum ^= (unsigned long long)(unsigned)v[i];
    checksum *= 1099511628211ULL;
  }
}

enum { K = 3 }; /* elements per rank and block */
static int me, P, root, ex, gather_kind, nbr[2];
static int *send, *recv;
/* Elements in send and recv: K per rank, and at least K per neighbour of the ring's two (at
   P = 1 the neighbourhood calls still name two blocks, of MPI_PROC_NULL neighbours). */
static int elems(void) { return K * (P > 2 ? P : 2); }
static int value(int r, int k) { return 1000 * r + k + 1; }
static void reset(void) {
  for (int i = 0; i < elems(); ++i) send[i] = value(me, i), recv[i] = -1;
}
static const char *form(int nb) { return nb ? " (nonblocking)" : ""; }

static void check_gather(int nb) {
  if (me == root)
    for (int r = 0; r < P; ++r)
      for (int k = 0; k < K; ++k)
        EXPECT(recv[K * r + k] == value(r, k), "gather%s: [%d][%d] = %d", form(nb), r, k,
               recv[K * r + k]);
  if (me == root) mix(recv, K * P);
}
static void check_scatter(int nb) {
  for (int k = 0; k < K; ++k)
    EXPECT(recv[k] == value(root, K * me + k), "scatter%s: [%d] = %d", form(nb), k, recv[k]);
  mix(recv, K);
}
static void check_scan(int nb) {
  if (ex && me == 0) return; /* exscan leaves rank 0's result undefined */
  for (int k = 0; k < K; ++k) {
    long want = 0;
    for (int r = 0; r < (ex ? me : me + 1); ++r) want += value(r, k);
    EXPECT(recv[k] == want, "%s%s: [%d] = %d, want %ld", ex ? "exscan" : "scan", form(nb), k,
           recv[k], want);
  }
  mix(recv, K);
}
static void check_alltoallw(int nb) {
  for (int r = 0; r < P; ++r)
    for (int k = 0; k < K; ++k)
      EXPECT(recv[K * r + k] == value(r, K * me + k), "alltoallw%s: [%d][%d] = %d", form(nb), r,
             k, recv[K * r + k]);
  mix(recv, K * P);
}
static void check_neighbor(int nb) {
  for (int j = 0; j < 2; ++j)
    for (int k = 0; k < K && nbr[j] != MPI_PROC_NULL; ++k) {
      /* allgather: each neighbour's first K values; alltoall: the neighbour's block for me (the
         left neighbour sends me its block 1, "right"; the right one its block 0) */
      /* (a block of an MPI_PROC_NULL neighbour is not checked: Open MPI 4.1 zeroes some) */
      const int want = gather_kind ? value(nbr[j], k) : value(nbr[j], K * (1 - j) + k);
      EXPECT(recv[K * j + k] == want, "neighbor_%s%s: [%d][%d] = %d, want %d",
             gather_kind ? "allgather" : "alltoall", form(nb), j, k, recv[K * j + k], want);
    }
  mix(recv, 2 * K);
}

/* The blocking call, its check, then the nonblocking one (its request waited for) and the check. */
#define BOTH(check, stmt_blocking, stmt_nonblocking) \
  do {                                               \
    MPI_Request req_ = MPI_REQUEST_NULL;             \
    MPI_Request *request = &req_;                    \
    reset();                                         \
    stmt_blocking;                                   \
    check(0);                                        \
    reset();                                         \
    stmt_nonblocking;                                \
    MPI_Wait(request, MPI_STATUS_IGNORE);            \
    check(1);                                        \
  } while (0)

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &P);
  const MPI_Comm w = MPI_COMM_WORLD;
  root = P - 1;
  send = malloc(sizeof(int) * elems());
  recv = malloc(sizeof(int) * elems());
  int *counts = malloc(sizeof(int) * P), *displs = malloc(sizeof(int) * P);
  int *wdispls = malloc(sizeof(int) * P);
  MPI_Datatype *types = malloc(sizeof(MPI_Datatype) * P);
  for (int r = 0; r < P; ++r) {
    counts[r] = K;
    displs[r] = K * r;
    wdispls[r] = (int)sizeof(int) * K * r;
    types[r] = MPI_INT;
  }
  BOTH(check_gather, MPI_Gather(send, K, MPI_INT, recv, K, MPI_INT, root, w),
       MPI_Igather(send, K, MPI_INT, recv, K, MPI_INT, root, w, request));
  BOTH(check_gather, MPI_Gatherv(send, K, MPI_INT, recv, counts, displs, MPI_INT, root, w),
       MPI_Igatherv(send, K, MPI_INT, recv, counts, displs, MPI_INT, root, w, request));
  BOTH(check_scatter, MPI_Scatter(send, K, MPI_INT, recv, K, MPI_INT, root, w),
       MPI_Iscatter(send, K, MPI_INT, recv, K, MPI_INT, root, w, request));
  BOTH(check_scatter, MPI_Scatterv(send, counts, displs, MPI_INT, recv, K, MPI_INT, root, w),
       MPI_Iscatterv(send, counts, displs, MPI_INT, recv, K, MPI_INT, root, w, request));
  ex = 0;
  BOTH(check_scan, MPI_Scan(send, recv, K, MPI_INT, MPI_SUM, w),
       MPI_Iscan(send, recv, K, MPI_INT, MPI_SUM, w, request));
  ex = 1;
  BOTH(check_scan, MPI_Exscan(send, recv, K, MPI_INT, MPI_SUM, w),
       MPI_Iexscan(send, recv, K, MPI_INT, MPI_SUM, w, request));
  BOTH(check_alltoallw,
       MPI_Alltoallw(send, counts, wdispls, types, recv, counts, wdispls, types, w),
       MPI_Ialltoallw(send, counts, wdispls, types, recv, counts, wdispls, types, w, request));
  /* neighbourhood collectives on a ring: neighbours left, right (in that order); periodic from
     P = 3 (below, a rank would be both neighbours of another, or its own, and which message
     fills which block is not what this check assumes), else open: MPI_PROC_NULL at the ends */
  MPI_Comm ring;
  const int dims[1] = {P}, periods[1] = {P >= 3};
  MPI_Cart_create(w, 1, dims, periods, 0, &ring);
  MPI_Cart_shift(ring, 0, 1, &nbr[0], &nbr[1]);
  const int c2[2] = {K, K}, d2[2] = {0, K};
  const MPI_Aint a2[2] = {0, (MPI_Aint)(sizeof(int) * K)};
  const MPI_Datatype t2[2] = {MPI_INT, MPI_INT};
  gather_kind = 1;
  BOTH(check_neighbor, MPI_Neighbor_allgather(send, K, MPI_INT, recv, K, MPI_INT, ring),
       MPI_Ineighbor_allgather(send, K, MPI_INT, recv, K, MPI_INT, ring, request));
  BOTH(check_neighbor, MPI_Neighbor_allgatherv(send, K, MPI_INT, recv, c2, d2, MPI_INT, ring),
       MPI_Ineighbor_allgatherv(send, K, MPI_INT, recv, c2, d2, MPI_INT, ring, request));
  gather_kind = 0;
  BOTH(check_neighbor, MPI_Neighbor_alltoall(send, K, MPI_INT, recv, K, MPI_INT, ring),
       MPI_Ineighbor_alltoall(send, K, MPI_INT, recv, K, MPI_INT, ring, request));
  BOTH(check_neighbor,
       MPI_Neighbor_alltoallv(send, c2, d2, MPI_INT, recv, c2, d2, MPI_INT, ring),
       MPI_Ineighbor_alltoallv(send, c2, d2, MPI_INT, recv, c2, d2, MPI_INT, ring, request));
  BOTH(check_neighbor, MPI_Neighbor_alltoallw(send, c2, a2, t2, recv, c2, a2, t2, ring),
       MPI_Ineighbor_alltoallw(send, c2, a2, t2, recv, c2, a2, t2, ring, request));
  MPI_Comm_free(&ring);
  if (me == 0) {
    printf("rest counts:");
    const char *names[] = {"gather", "gatherv", "scatter", "scatterv", "scan", "exscan", "alltoallw", "neighbor_allgather",
                           "neighbor_allgatherv", "neighbor_alltoall", "neighbor_alltoallv",
                           "neighbor_alltoallw"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; ++i)
      printf(" %s=1 i%s=1", names[i], names[i]);
    printf("\n");
  }
  /* A checksum of every rank's results (MPI_BXOR of per-rank hashes, each mixed with its
     rank): through MPI_Allreduce, which pcoll serves, so it adds nothing to the counts above. */
  unsigned long long mine = checksum * (2ULL * (unsigned long long)me + 1ULL), all = 0;
  MPI_Allreduce(&mine, &all, 1, MPI_UNSIGNED_LONG_LONG, MPI_BXOR, w);
  int bad = 0;
  MPI_Allreduce(&failures, &bad, 1, MPI_INT, MPI_SUM, w);
  if (me == 0) {
    printf("checksum: %016llx\n", all);
    printf(bad ? "rest_mpi: %d failures\n" : "rest_mpi: results exact\n", bad);
  }
  free(send), free(recv), free(counts), free(displs), free(wdispls), free(types);
  MPI_Finalize();
  return bad ? 1 : 0;
}
