/* A tiny PMPI tool, as a user's profiler would be: it defines MPI_<Coll> for the collectives
 * pcoll intercepts, counts each call and forwards it to PMPI_<Coll>. Linked into plain_mpi.c
 * (the program "installs its own PMPI wrapper"); under libpcoll_mpi.so its PMPI_ calls reach
 * pcoll, and it must see every call of the program exactly once -- none of pcoll's own calls.
 * MPI_Finalize prints rank 0's counts before HDF5 writes the trace (whose collectives it would
 * count too: they are not the program's). */
#include <mpi.h>
#include <stdio.h>

static int n_allreduce, n_rsb, n_rs, n_allgather, n_allgatherv, n_alltoall, n_alltoallv, n_bcast, n_reduce,
    n_barrier;

int MPI_Allreduce(const void *s, void *r, int n, MPI_Datatype t, MPI_Op op, MPI_Comm c) {
  ++n_allreduce;
  return PMPI_Allreduce(s, r, n, t, op, c);
}
int MPI_Reduce_scatter_block(const void *s, void *r, int n, MPI_Datatype t, MPI_Op op, MPI_Comm c) {
  ++n_rsb;
  return PMPI_Reduce_scatter_block(s, r, n, t, op, c);
}
int MPI_Reduce_scatter(const void *s, void *r, const int n[], MPI_Datatype t, MPI_Op op,
                       MPI_Comm c) {
  ++n_rs;
  return PMPI_Reduce_scatter(s, r, n, t, op, c);
}
int MPI_Allgather(const void *s, int sn, MPI_Datatype st, void *r, int rn, MPI_Datatype rt,
                  MPI_Comm c) {
  ++n_allgather;
  return PMPI_Allgather(s, sn, st, r, rn, rt, c);
}
int MPI_Allgatherv(const void *s, int sn, MPI_Datatype st, void *r, const int rc[], const int rd[],
                   MPI_Datatype rt, MPI_Comm c) {
  ++n_allgatherv;
  return PMPI_Allgatherv(s, sn, st, r, rc, rd, rt, c);
}
int MPI_Alltoall(const void *s, int sn, MPI_Datatype st, void *r, int rn, MPI_Datatype rt,
                 MPI_Comm c) {
  ++n_alltoall;
  return PMPI_Alltoall(s, sn, st, r, rn, rt, c);
}
int MPI_Alltoallv(const void *s, const int sc[], const int sd[], MPI_Datatype st, void *r,
                  const int rc[], const int rd[], MPI_Datatype rt, MPI_Comm c) {
  ++n_alltoallv;
  return PMPI_Alltoallv(s, sc, sd, st, r, rc, rd, rt, c);
}
int MPI_Bcast(void *b, int n, MPI_Datatype t, int root, MPI_Comm c) {
  ++n_bcast;
  return PMPI_Bcast(b, n, t, root, c);
}
int MPI_Reduce(const void *s, void *r, int n, MPI_Datatype t, MPI_Op op, int root, MPI_Comm c) {
  ++n_reduce;
  return PMPI_Reduce(s, r, n, t, op, root, c);
}
int MPI_Barrier(MPI_Comm c) {
  ++n_barrier;
  return PMPI_Barrier(c);
}

int MPI_Finalize(void) {
  int rank = 0;
  PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0)
    printf(
        "counting tool: allreduce=%d reduce_scatter_block=%d reduce_scatter=%d allgather=%d "
        "allgatherv=%d alltoall=%d alltoallv=%d bcast=%d reduce=%d barrier=%d\n",
        n_allreduce, n_rsb, n_rs, n_allgather, n_allgatherv, n_alltoall, n_alltoallv, n_bcast, n_reduce,
        n_barrier);
  fflush(stdout);
  return PMPI_Finalize();
}
