// The intercepted collectives of libpcoll_mpi.so: MPI_<Coll> and PMPI_<Coll> for every
// collective pcoll implements (the rows of registry.cpp's collective table). Each passes the
// Gate (interpose.hpp) to PCOLL_<Coll> or, unchanged, to the vendor's PMPI_<Coll>. pcoll itself
// decides everything else: the algorithm (PCOLL_<COLL>), and calls it cannot serve
// (non-contiguous types, inter-communicators, ...) go to the vendor under PCOLL_FALLBACK and are
// traced as "vendor (fallback: reason)".
#include <pcoll/pcoll.h>

#include "pmpi/interpose.hpp"

using pcoll::pmpi::Gate;

namespace {

int allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
              MPI_Comm comm) {
  PCOLL_VENDOR(PMPI_Allreduce);
  const Gate gate;
  return gate.serve() ? PCOLL_Allreduce(sendbuf, recvbuf, count, datatype, op, comm)
                      : vendor_PMPI_Allreduce(sendbuf, recvbuf, count, datatype, op, comm);
}

int reduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount, MPI_Datatype datatype,
                         MPI_Op op, MPI_Comm comm) {
  PCOLL_VENDOR(PMPI_Reduce_scatter_block);
  const Gate gate;
  return gate.serve()
             ? PCOLL_Reduce_scatter_block(sendbuf, recvbuf, recvcount, datatype, op, comm)
             : vendor_PMPI_Reduce_scatter_block(sendbuf, recvbuf, recvcount, datatype, op, comm);
}

int reduce_scatter(const void *sendbuf, void *recvbuf, const int recvcounts[], MPI_Datatype datatype,
                   MPI_Op op, MPI_Comm comm) {
  PCOLL_VENDOR(PMPI_Reduce_scatter);
  const Gate gate;
  return gate.serve() ? PCOLL_Reduce_scatter(sendbuf, recvbuf, recvcounts, datatype, op, comm)
                      : vendor_PMPI_Reduce_scatter(sendbuf, recvbuf, recvcounts, datatype, op, comm);
}

int allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
              int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  PCOLL_VENDOR(PMPI_Allgather);
  const Gate gate;
  return gate.serve()
             ? PCOLL_Allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm)
             : vendor_PMPI_Allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                                     comm);
}

int allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
               const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm) {
  PCOLL_VENDOR(PMPI_Allgatherv);
  const Gate gate;
  return gate.serve() ? PCOLL_Allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs,
                                         recvtype, comm)
                      : vendor_PMPI_Allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts,
                                               displs, recvtype, comm);
}

int alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
             int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  PCOLL_VENDOR(PMPI_Alltoall);
  const Gate gate;
  return gate.serve()
             ? PCOLL_Alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm)
             : vendor_PMPI_Alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                                    comm);
}

int alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
              MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int rdispls[],
              MPI_Datatype recvtype, MPI_Comm comm) {
  PCOLL_VENDOR(PMPI_Alltoallv);
  const Gate gate;
  return gate.serve() ? PCOLL_Alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts,
                                        rdispls, recvtype, comm)
                      : vendor_PMPI_Alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf,
                                              recvcounts, rdispls, recvtype, comm);
}

int bcast(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm) {
  PCOLL_VENDOR(PMPI_Bcast);
  const Gate gate;
  return gate.serve() ? PCOLL_Bcast(buffer, count, datatype, root, comm)
                      : vendor_PMPI_Bcast(buffer, count, datatype, root, comm);
}

int reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
           int root, MPI_Comm comm) {
  PCOLL_VENDOR(PMPI_Reduce);
  const Gate gate;
  return gate.serve() ? PCOLL_Reduce(sendbuf, recvbuf, count, datatype, op, root, comm)
                      : vendor_PMPI_Reduce(sendbuf, recvbuf, count, datatype, op, root, comm);
}

int barrier(MPI_Comm comm) {
  PCOLL_VENDOR(PMPI_Barrier);
  const Gate gate;
  return gate.serve() ? PCOLL_Barrier(comm) : vendor_PMPI_Barrier(comm);
}

}  // namespace

// Both names of each: MPI_ for programs, PMPI_ for PMPI tools and Open MPI's Fortran bindings.
#define PCOLL_BOTH(ret, name, params, impl, args) \
  ret MPI_##name params {                         \
    return impl args;                             \
  }                                               \
  ret PMPI_##name params {                        \
    return impl args;                             \
  }

extern "C" {

PCOLL_BOTH(int, Allreduce,
           (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
            MPI_Comm comm),
           allreduce, (sendbuf, recvbuf, count, datatype, op, comm))
PCOLL_BOTH(int, Reduce_scatter_block,
           (const void *sendbuf, void *recvbuf, int recvcount, MPI_Datatype datatype, MPI_Op op,
            MPI_Comm comm),
           reduce_scatter_block, (sendbuf, recvbuf, recvcount, datatype, op, comm))
PCOLL_BOTH(int, Reduce_scatter,
           (const void *sendbuf, void *recvbuf, const int recvcounts[], MPI_Datatype datatype,
            MPI_Op op, MPI_Comm comm),
           reduce_scatter, (sendbuf, recvbuf, recvcounts, datatype, op, comm))
PCOLL_BOTH(int, Allgather,
           (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
            MPI_Datatype recvtype, MPI_Comm comm),
           allgather, (sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm))
PCOLL_BOTH(int, Allgatherv,
           (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
            const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm),
           allgatherv, (sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm))
PCOLL_BOTH(int, Alltoall,
           (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
            MPI_Datatype recvtype, MPI_Comm comm),
           alltoall, (sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm))
PCOLL_BOTH(int, Alltoallv,
           (const void *sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype,
            void *recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype,
            MPI_Comm comm),
           alltoallv,
           (sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm))
PCOLL_BOTH(int, Bcast, (void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm),
           bcast, (buffer, count, datatype, root, comm))
PCOLL_BOTH(int, Reduce,
           (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
            int root, MPI_Comm comm),
           reduce, (sendbuf, recvbuf, count, datatype, op, root, comm))
PCOLL_BOTH(int, Barrier, (MPI_Comm comm), barrier, (comm))

}  // extern "C"
