/* sim_nic_sharing.c - what does SimGrid/SMPI model about a node's NIC, its loopback and
 * MPI_COMM_TYPE_SHARED?  Run with P = 2 * (cores per host) ranks placed consecutively
 * (scripts/lib/sim_hostfile.sh), so ranks [0, ppn) sit on host 0 and [ppn, 2 ppn) on host 1.
 *
 *   A  8 B one-way latency, rank 0 -> rank ppn (ping-pong / 2), inter-host
 *   B  1 MiB rank 0 -> rank ppn, alone
 *   C  1 MiB rank i -> rank ppn + i for all i < ppn at once (do they share the host link?)
 *   D  8 B one-way latency, rank 0 -> rank 1 (same host: loopback?)
 *   E  1 MiB rank 0 -> rank 1, alone (same host)
 *   F  1 MiB rank i -> rank i + ppn/2 for all i < ppn/2 at once (same host: is loopback shared?)
 * plus the sizes of MPI_Comm_split_type(MPI_COMM_TYPE_SHARED) and the host names.
 * Times are simulated seconds (max over ranks).  Needs P even and >= 4. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BIG (1 << 20)

static double timed_pairs(int rank, int nsend, int first_src, int offset, int bytes, char* buf)
{
  /* ranks first_src .. first_src+nsend-1 send `bytes` to rank + offset */
  MPI_Barrier(MPI_COMM_WORLD);
  double t0 = MPI_Wtime();
  if (rank >= first_src && rank < first_src + nsend)
    MPI_Send(buf, bytes, MPI_CHAR, rank + offset, 7, MPI_COMM_WORLD);
  else if (rank >= first_src + offset && rank < first_src + offset + nsend)
    MPI_Recv(buf, bytes, MPI_CHAR, rank - offset, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  double dt = MPI_Wtime() - t0, mx = 0;
  MPI_Reduce(&dt, &mx, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  return mx;
}

static double pingpong(int rank, int a, int b, int bytes, char* buf)
{
  const int iters = 10;
  MPI_Barrier(MPI_COMM_WORLD);
  double t0 = MPI_Wtime();
  for (int k = 0; k < iters; k++) {
    if (rank == a) {
      MPI_Send(buf, bytes, MPI_CHAR, b, 9, MPI_COMM_WORLD);
      MPI_Recv(buf, bytes, MPI_CHAR, b, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else if (rank == b) {
      MPI_Recv(buf, bytes, MPI_CHAR, a, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      MPI_Send(buf, bytes, MPI_CHAR, a, 9, MPI_COMM_WORLD);
    }
  }
  double dt = (MPI_Wtime() - t0) / (2.0 * iters), mx = 0;
  if (rank != a) dt = 0;
  MPI_Reduce(&dt, &mx, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  return mx;
}

int main(int argc, char** argv)
{
  MPI_Init(&argc, &argv);
  int rank, P;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &P);
  if (P < 4 || P % 2) {
    if (rank == 0) fprintf(stderr, "sim_nic_sharing: needs an even P >= 4 (got %d)\n", P);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  const int ppn = P / 2;
  char* buf = calloc(BIG, 1);

  MPI_Comm shm;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &shm);
  int shm_size, shm_rank;
  MPI_Comm_size(shm, &shm_size);
  MPI_Comm_rank(shm, &shm_rank);
  int min_sz, max_sz, nleaders, leader = (shm_rank == 0);
  MPI_Reduce(&shm_size, &min_sz, 1, MPI_INT, MPI_MIN, 0, MPI_COMM_WORLD);
  MPI_Reduce(&shm_size, &max_sz, 1, MPI_INT, MPI_MAX, 0, MPI_COMM_WORLD);
  MPI_Reduce(&leader, &nleaders, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);

  char name[MPI_MAX_PROCESSOR_NAME];
  int len;
  MPI_Get_processor_name(name, &len);
  char names[3][MPI_MAX_PROCESSOR_NAME];
  const int who[3] = {0, ppn - 1, ppn};
  for (int k = 0; k < 3; k++) {
    if (rank == who[k] && rank != 0) MPI_Send(name, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, 0, 3, MPI_COMM_WORLD);
    if (rank == 0) {
      if (who[k] == 0) memcpy(names[k], name, MPI_MAX_PROCESSOR_NAME);
      else MPI_Recv(names[k], MPI_MAX_PROCESSOR_NAME, MPI_CHAR, who[k], 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
  }

  double a = pingpong(rank, 0, ppn, 8, buf);
  double b = timed_pairs(rank, 1, 0, ppn, BIG, buf);
  double c = timed_pairs(rank, ppn, 0, ppn, BIG, buf);
  double d = pingpong(rank, 0, 1, 8, buf);
  double e = timed_pairs(rank, 1, 0, ppn / 2, BIG, buf);
  double f = timed_pairs(rank, ppn / 2, 0, ppn / 2, BIG, buf);

  if (rank == 0) {
    printf("P=%d ppn=%d hosts: rank0=%s rank%d=%s rank%d=%s\n", P, ppn, names[0], ppn - 1, names[1], ppn,
           names[2]);
    printf("split_type(SHARED): %d communicators, sizes min %d max %d\n", nleaders, min_sz, max_sz);
    printf("A inter-host 8 B one-way latency          %10.3f us\n", a * 1e6);
    printf("B inter-host 1 MiB, 1 sender              %10.3f us  (%.2f GB/s)\n", b * 1e6, BIG / b / 1e9);
    printf("C inter-host 1 MiB, %3d senders at once   %10.3f us  (%.2f GB/s per pair, %.2f GB/s total)\n", ppn,
           c * 1e6, BIG / c / 1e9, ppn * (double)BIG / c / 1e9);
    printf("D intra-host 8 B one-way latency          %10.3f us\n", d * 1e6);
    printf("E intra-host 1 MiB, 1 pair                %10.3f us  (%.2f GB/s)\n", e * 1e6, BIG / e / 1e9);
    printf("F intra-host 1 MiB, %3d pairs at once     %10.3f us  (%.2f GB/s per pair, %.2f GB/s total)\n",
           ppn / 2, f * 1e6, BIG / f / 1e9, (ppn / 2) * (double)BIG / f / 1e9);
    printf("C/B = %.2f (1 = each sender gets the full link: NIC not shared; ~%d = shared)\n", c / b, ppn);
    printf("F/E = %.2f (1 = loopback not shared; ~%d = shared)\n", f / e, ppn / 2);
  }
  MPI_Comm_free(&shm);
  free(buf);
  MPI_Finalize();
  return 0;
}
