/* An "unmodified application": plain MPI calls only, no pcoll header. Every collective pcoll
 * intercepts, at several counts, roots and in place, with exactly known results (integers, or
 * doubles whose sums are exact); a wrong element stops the run with MPI_Abort. Rank 0 prints how
 * many calls of each collective it made, so the test driver can check that the trace (and, in
 * the counting-tool build, the tool) saw each exactly once, and the bits of one inexact double
 * sum (a checksum that must equal the vendor's under PCOLL_DISABLE=1). Two broadcasts of
 * non-contiguous types and an inter-communicator allreduce are pcoll's documented vendor
 * fallbacks ("fallback=2", "inter=1", not in "bcast=", "allreduce="). */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank, size;
static int n_allreduce, n_rsb, n_allgather, n_alltoall, n_alltoallv, n_bcast, n_reduce, n_barrier;

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

/* Two broadcasts pcoll hands to the vendor, traced as "vendor (fallback: the datatype is not
 * contiguous)": a strided vector type (every other int) and MPI_BOTTOM with an absolute-address
 * type. Broadcasts, since Open MPI refuses predefined ops on derived types. */
static void test_fallback(void) {
  MPI_Datatype strided;
  MPI_Type_vector(3, 1, 2, MPI_INT, &strided);
  MPI_Type_commit(&strided);
  int buf[5] = {-1, 99, -1, 99, -1};
  if (rank == 0) buf[0] = 10, buf[2] = 20, buf[4] = 30;
  MPI_Bcast(buf, 1, strided, 0, MPI_COMM_WORLD);
  expect(buf[0] == 10 && buf[2] == 20 && buf[4] == 30 && buf[1] == 99 && buf[3] == 99,
         "strided bcast", 0, buf[0], 10);
  MPI_Type_free(&strided);
  /* MPI_BOTTOM with a datatype of absolute addresses: the vendor's too, never an error. */
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
}

/* An allreduce on an inter-communicator (the vendor's; each group gets the other's sum). */
static int test_intercomm(void) {
  if (size < 2) return 0;
  MPI_Comm half, inter;
  MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
  MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, rank % 2 ? 0 : 1, 7, &inter);
  int x = rank, s = -1, want = 0;
  for (int q = 0; q < size; ++q) want += q % 2 != rank % 2 ? q : 0;
  MPI_Allreduce(&x, &s, 1, MPI_INT, MPI_SUM, inter);
  expect(s == want, "inter-communicator allreduce", 0, s, want);
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
  test_rooted(1, 0);
  test_rooted(100, size - 1);
  test_rooted(17, size / 2);
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Barrier(MPI_COMM_WORLD);
  n_barrier += 2;
  test_fallback();
  const int inter = test_intercomm();
  const uint64_t sum = inexact_checksum();
  if (rank == 0) {
    printf(
        "plain_mpi counts: allreduce=%d reduce_scatter_block=%d allgather=%d alltoall=%d "
        "alltoallv=%d bcast=%d reduce=%d barrier=%d fallback=2 inter=%d\n",
        n_allreduce, n_rsb, n_allgather, n_alltoall, n_alltoallv, n_bcast, n_reduce, n_barrier,
        inter);
    printf("plain_mpi checksum: %016llx\n", (unsigned long long)sum);
    printf("plain_mpi: P=%d, all results exact\n", size);
  }
  MPI_Finalize();
  return 0;
}
