/* An "unmodified application": plain MPI calls only, no pcoll header. Every collective pcoll
 * intercepts, at several counts, roots and in place, with exactly known results (integers, or
 * doubles whose sums are exact); a wrong element stops the run with MPI_Abort. Rank 0 prints how
 * many calls of each collective it made, so the test driver can check that the trace (and, in
 * the counting-tool build, the tool) saw each exactly once, and the bits of one inexact double
 * sum (a checksum that must equal the vendor's under PCOLL_DISABLE=1). Broadcasts whose ranks
 * pass different datatypes of one signature are served by pcoll (counted in "bcast="); one call
 * of each collective on an inter-communicator is pcoll's documented vendor fallback ("inter=1"
 * per collective, not in its own count). */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank, size;
static int n_allreduce, n_rsb, n_rs, n_allgather, n_allgatherv, n_alltoall, n_alltoallv, n_bcast, n_reduce,
    n_barrier;

static void expect(int ok, const char *what, int i, long got, long want) {
  if (ok) return;
  fprintf(stderr, "rank %d: %s: element %d is %ld, expected %ld\n", rank, what, i, got, want);
  MPI_Abort(MPI_COMM_WORLD, 2);
}

static void test_allreduce(int n) {
  int *in = malloc(sizeof(int) * (n + 1)), *out = malloc(sizeof(int) * (n + 1));
  double *d = malloc(sizeof(double) * (n + 1));
  for (int i = 0; i < n; ++i) in[i] = rank * 1000 + i, d[i] = rank + 0.5 * i;
  MPI_Allreduce(in, out, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  for (int i = 0; i < n; ++i)
    expect(out[i] == size * i + 1000 * size * (size - 1) / 2, "allreduce sum", i, out[i],
           size * i + 1000 * size * (size - 1) / 2);
  MPI_Allreduce(MPI_IN_PLACE, d, n, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  for (int i = 0; i < n; ++i)
    expect(d[i] == size - 1 + 0.5 * i, "allreduce max in place", i, (long)d[i], size - 1);
  n_allreduce += 2;
  free(in), free(out), free(d);
}

static void test_reduce_scatter_block(int rc) {
  int *in = malloc(sizeof(int) * (size * rc + 1)), *out = malloc(sizeof(int) * (size * rc + 1));
  for (int j = 0; j < size * rc; ++j) in[j] = rank + j;
  MPI_Reduce_scatter_block(in, out, rc, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  for (int k = 0; k < rc; ++k) {
    const long want = (long)size * (rank * rc + k) + size * (size - 1) / 2;
    expect(out[k] == want, "reduce_scatter_block", k, out[k], want);
  }
  n_rsb += 1;
  free(in), free(out);
}

static void test_allgather(int n, int in_place) {
  int *in = malloc(sizeof(int) * (n + 1)), *out = malloc(sizeof(int) * (size * n + 1));
  for (int k = 0; k < n; ++k) in[k] = out[rank * n + k] = rank * 100 + k;
  if (in_place)
    MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, out, n, MPI_INT, MPI_COMM_WORLD);
  else
    MPI_Allgather(in, n, MPI_INT, out, n, MPI_INT, MPI_COMM_WORLD);
  for (int q = 0; q < size; ++q)
    for (int k = 0; k < n; ++k)
      expect(out[q * n + k] == q * 100 + k, "allgather", q * n + k, out[q * n + k], q * 100 + k);
  n_allgather += 1;
  free(in), free(out);
}

static void test_alltoall(int n) {
  int *in = malloc(sizeof(int) * (size * n + 1)), *out = malloc(sizeof(int) * (size * n + 1));
  for (int q = 0; q < size; ++q)
    for (int k = 0; k < n; ++k) in[q * n + k] = rank * 10000 + q * 100 + k;
  MPI_Alltoall(in, n, MPI_INT, out, n, MPI_INT, MPI_COMM_WORLD);
  for (int q = 0; q < size; ++q)
    for (int k = 0; k < n; ++k)
      expect(out[q * n + k] == q * 10000 + rank * 100 + k, "alltoall", q * n + k, out[q * n + k],
             q * 10000 + rank * 100 + k);
  n_alltoall += 1;
  free(in), free(out);
}

/* Block q of the reduced vector has (q * 3 + 1) % 4 elements (some none); in place the whole
 * vector is in the receive buffer and the result lands in front. */
static void test_reduce_scatter(int in_place) {
  int *counts = malloc(sizeof(int) * size), total = 0, first = 0;
  for (int q = 0; q < size; ++q) {
    counts[q] = (q * 3 + 1) % 4;
    if (q < rank) first += counts[q];
    total += counts[q];
  }
  int *in = malloc(sizeof(int) * (total + 1)), *out = malloc(sizeof(int) * (total + 1));
  for (int k = 0; k < total; ++k) in[k] = out[k] = rank * 1000 + k;
  if (in_place)
    MPI_Reduce_scatter(MPI_IN_PLACE, out, counts, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  else
    MPI_Reduce_scatter(in, out, counts, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  for (int k = 0; k < counts[rank]; ++k) {
    const int want = 1000 * size * (size - 1) / 2 + size * (first + k);
    expect(out[k] == want, "reduce_scatter", k, out[k], want);
  }
  n_rs += 1;
  free(counts), free(in), free(out);
}

/* Rank q contributes (q * 5 + 2) % 4 elements (some none), placed in reverse rank order with a
 * gap of one; in place the own block is read from its place. */
static void test_allgatherv(int in_place) {
  int *counts = malloc(sizeof(int) * size), *displs = malloc(sizeof(int) * size);
  int off = 0;
  for (int q = size - 1; q >= 0; --q) {
    counts[q] = (q * 5 + 2) % 4;
    displs[q] = off;
    off += counts[q] + 1;
  }
  int *in = malloc(sizeof(int) * 4), *out = malloc(sizeof(int) * (off + 1));
  for (int k = 0; k < off; ++k) out[k] = -1;
  for (int k = 0; k < counts[rank]; ++k) in[k] = out[displs[rank] + k] = rank * 100 + k;
  if (in_place)
    MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, out, counts, displs, MPI_INT,
                   MPI_COMM_WORLD);
  else
    MPI_Allgatherv(in, counts[rank], MPI_INT, out, counts, displs, MPI_INT, MPI_COMM_WORLD);
  for (int q = 0; q < size; ++q) {
    for (int k = 0; k < counts[q]; ++k)
      expect(out[displs[q] + k] == q * 100 + k, "allgatherv", displs[q] + k, out[displs[q] + k],
             q * 100 + k);
    expect(out[displs[q] + counts[q]] == -1, "allgatherv gap", displs[q] + counts[q],
           out[displs[q] + counts[q]], -1);
  }
  n_allgatherv += 1;
  free(counts), free(displs), free(in), free(out);
}

/* Rank r sends (r + q) % 3 + 1 elements to q: symmetric, so q expects as many from r. */
static void test_alltoallv(void) {
  int *sc = malloc(sizeof(int) * size), *sd = malloc(sizeof(int) * size);
  int *rc = malloc(sizeof(int) * size), *rd = malloc(sizeof(int) * size);
  int st = 0, rt = 0;
  for (int q = 0; q < size; ++q) {
    sc[q] = rc[q] = (rank + q) % 3 + 1;
    sd[q] = st, rd[q] = rt;
    st += sc[q], rt += rc[q];
  }
  int *in = malloc(sizeof(int) * st), *out = malloc(sizeof(int) * rt);
  for (int q = 0; q < size; ++q)
    for (int k = 0; k < sc[q]; ++k) in[sd[q] + k] = rank * 10000 + q * 100 + k;
  MPI_Alltoallv(in, sc, sd, MPI_INT, out, rc, rd, MPI_INT, MPI_COMM_WORLD);
  for (int q = 0; q < size; ++q)
    for (int k = 0; k < rc[q]; ++k)
      expect(out[rd[q] + k] == q * 10000 + rank * 100 + k, "alltoallv", rd[q] + k, out[rd[q] + k],
             q * 10000 + rank * 100 + k);
  n_alltoallv += 1;
  free(sc), free(sd), free(rc), free(rd), free(in), free(out);
}

static void test_rooted(int n, int root) {
  int *buf = malloc(sizeof(int) * (n + 1)), *out = malloc(sizeof(int) * (n + 1));
  for (int i = 0; i < n; ++i) buf[i] = rank == root ? root * 1000 + i : -1;
  MPI_Bcast(buf, n, MPI_INT, root, MPI_COMM_WORLD);
  for (int i = 0; i < n; ++i)
    expect(buf[i] == root * 1000 + i, "bcast", i, buf[i], root * 1000 + i);
  for (int i = 0; i < n; ++i) buf[i] = rank + i, out[i] = -7;
  MPI_Reduce(buf, out, n, MPI_INT, MPI_SUM, root, MPI_COMM_WORLD);
  for (int i = 0; i < n; ++i) {
    const long want = rank == root ? (long)size * i + size * (size - 1) / 2 : -7;
    expect(out[i] == want, "reduce", i, out[i], want);
  }
  n_bcast += 1, n_reduce += 1;
  free(buf), free(out);
}

/* Broadcasts whose ranks pass different datatypes of one type signature (MPI matches
 * signatures, not types): the root a strided vector type (every other int), the others 3
 * contiguous ints or a resized type; then MPI_BOTTOM with an absolute-address type. pcoll packs
 * the non-contiguous buffers and every rank runs the same plan (a decision on the local layout
 * would send the root to the vendor and leave the others waiting). Broadcasts, since Open MPI
 * refuses predefined ops on derived types. */
static void test_signatures(void) {
  MPI_Datatype strided, spaced;
  MPI_Type_vector(3, 1, 2, MPI_INT, &strided);
  MPI_Type_commit(&strided);
  MPI_Type_create_resized(MPI_INT, 0, 2 * sizeof(int), &spaced); /* an int, then a gap */
  MPI_Type_commit(&spaced);
  int buf[5] = {-1, 99, -1, 99, -1};
  const int root = size - 1;
  if (rank == root) {
    buf[0] = 10, buf[2] = 20, buf[4] = 30;
    MPI_Bcast(buf, 1, strided, root, MPI_COMM_WORLD);
  } else if (rank % 2 == 0) {
    MPI_Bcast(buf, 3, MPI_INT, root, MPI_COMM_WORLD);
    buf[4] = buf[2], buf[2] = buf[1], buf[1] = 99, buf[3] = 99; /* spread like the others */
  } else {
    MPI_Bcast(buf, 3, spaced, root, MPI_COMM_WORLD);
  }
  expect(buf[0] == 10 && buf[2] == 20 && buf[4] == 30 && buf[1] == 99 && buf[3] == 99,
         "strided bcast", 0, buf[0], 10);
  MPI_Type_free(&strided);
  MPI_Type_free(&spaced);
  /* MPI_BOTTOM with a datatype of absolute addresses: packed too, never an error. */
  int abs_buf[2] = {rank == 0 ? 41 : -1, rank == 0 ? 42 : -1};
  MPI_Aint where;
  MPI_Get_address(abs_buf, &where);
  const int len = 2;
  MPI_Datatype absolute;
  MPI_Type_create_hindexed(1, &len, &where, MPI_INT, &absolute);
  MPI_Type_commit(&absolute);
  MPI_Bcast(MPI_BOTTOM, 1, absolute, 0, MPI_COMM_WORLD);
  expect(abs_buf[0] == 41 && abs_buf[1] == 42, "MPI_BOTTOM bcast", 0, abs_buf[0], 41);
  MPI_Type_free(&absolute);
  n_bcast += 2;
}

/* One call of each collective on an inter-communicator: the vendor's (traced as a fallback).
 * Groups: even and odd ranks of MPI_COMM_WORLD. */
static int test_intercomm(void) {
  if (size < 2) return 0;
  MPI_Comm half, inter;
  MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
  MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, rank % 2 ? 0 : 1, 7, &inter);
  int local = 0, remote = 0, lrank = 0;
  MPI_Comm_size(inter, &local);
  MPI_Comm_remote_size(inter, &remote);
  MPI_Comm_rank(inter, &lrank);
  /* allreduce: each group gets the other's sum */
  int x = rank, s = -1, want = 0;
  for (int q = 0; q < size; ++q) want += q % 2 != rank % 2 ? q : 0;
  MPI_Allreduce(&x, &s, 1, MPI_INT, MPI_SUM, inter);
  expect(s == want, "inter-communicator allreduce", 0, s, want);
  /* bcast from rank 0 of the even group to the odd group */
  int b = rank == 0 ? 77 : -1;
  const int root = rank % 2 == 0 ? (lrank == 0 ? MPI_ROOT : MPI_PROC_NULL) : 0;
  MPI_Bcast(&b, 1, MPI_INT, root, inter);
  if (rank % 2) expect(b == 77, "inter-communicator bcast", 0, b, 77);
  /* allgather, alltoall, alltoallv: every rank of the other group, in its rank order */
  int *got = malloc(sizeof(int) * remote), *mine = malloc(sizeof(int) * remote);
  int *ones = malloc(sizeof(int) * remote), *displs = malloc(sizeof(int) * remote);
  for (int q = 0; q < remote; ++q) mine[q] = 100 * rank + q, ones[q] = 1, displs[q] = q;
  MPI_Allgather(&x, 1, MPI_INT, got, 1, MPI_INT, inter);
  for (int q = 0; q < remote; ++q)
    expect(got[q] == 2 * q + (rank % 2 ? 0 : 1), "inter-communicator allgather", q, got[q],
           2 * q + (rank % 2 ? 0 : 1));
  MPI_Alltoall(mine, 1, MPI_INT, got, 1, MPI_INT, inter);
  for (int q = 0; q < remote; ++q) {
    const int from = 2 * q + (rank % 2 ? 0 : 1);
    expect(got[q] == 100 * from + lrank, "inter-communicator alltoall", q, got[q],
           100 * from + lrank);
  }
  MPI_Alltoallv(mine, ones, displs, MPI_INT, got, ones, displs, MPI_INT, inter);
  for (int q = 0; q < remote; ++q) {
    const int from = 2 * q + (rank % 2 ? 0 : 1);
    expect(got[q] == 100 * from + lrank, "inter-communicator alltoallv", q, got[q],
           100 * from + lrank);
  }
  MPI_Barrier(inter);
  free(got), free(mine), free(ones), free(displs);
  MPI_Comm_free(&inter);
  MPI_Comm_free(&half);
  return 1;
}

/* Sums whose rounding depends on the order of association: the vendor's bits. */
static uint64_t inexact_checksum(void) {
  double x[7], y[7];
  for (int i = 0; i < 7; ++i) x[i] = 1.0 / (3.0 + rank + 7 * i) * (i % 2 ? 1e8 : 1e-8);
  MPI_Allreduce(x, y, 7, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  n_allreduce += 1;
  uint64_t h = 1469598103934665603ull;
  for (int i = 0; i < 7; ++i) {
    uint64_t b;
    memcpy(&b, &y[i], sizeof b);
    h = (h ^ b) * 1099511628211ull;
  }
  return h;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int counts[] = {0, 1, 3, size + 1, 1000};
  for (int c = 0; c < 5; ++c) test_allreduce(counts[c]);
  test_reduce_scatter_block(1);
  test_reduce_scatter_block(7);
  test_allgather(1, 0);
  test_allgather(5, 1);
  test_alltoall(1);
  test_alltoall(3);
  test_alltoallv();
  test_allgatherv(0);
  test_allgatherv(1);
  test_reduce_scatter(0);
  test_reduce_scatter(1);
  test_rooted(1, 0);
  test_rooted(100, size - 1);
  test_rooted(17, size / 2);
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Barrier(MPI_COMM_WORLD);
  n_barrier += 2;
  test_signatures();
  const int inter = test_intercomm();
  const uint64_t sum = inexact_checksum();
  if (rank == 0) {
    printf(
        "plain_mpi counts: allreduce=%d reduce_scatter_block=%d reduce_scatter=%d allgather=%d "
        "allgatherv=%d alltoall=%d alltoallv=%d bcast=%d reduce=%d barrier=%d inter=%d\n",
        n_allreduce, n_rsb, n_rs, n_allgather, n_allgatherv, n_alltoall, n_alltoallv, n_bcast, n_reduce,
        n_barrier, inter);
    printf("plain_mpi checksum: %016llx\n", (unsigned long long)sum);
    printf("plain_mpi: P=%d, all results exact\n", size);
  }
  MPI_Finalize();
  return 0;
}
