// The nonblocking and persistent collectives of libpcoll_mpi.so and MPI's completion calls
// (MPI_Wait/Test/..., MPI_Start/Startall, MPI_Request_free, MPI_Request_get_status), each under
// both its MPI_ and PMPI_ name like collectives.cpp's. A nonblocking collective passes the Gate
// to PCOLL_I<coll>; the completion calls go to pcoll's (which make progress on pcoll's
// outstanding collectives while they wait) only while a pcoll request exists, and are a plain
// pass-through to the vendor otherwise, so programs that never use a nonblocking collective
// see no difference (nor do threads of MPI_THREAD_MULTIPLE programs that only wait on
// point-to-point requests).
//
// Persistent collectives: MPI 4.0's MPI_<Coll>_init where mpi.h declares them, and Open MPI
// 4.1's MPIX_<Coll>_init (its pcollreq extension, mpi-ext.h), which is what programs built with
// Open MPI 4.1 call.
#include <pcoll/pcoll.h>

#if defined(__has_include)
#if __has_include(<mpi-ext.h>)
#include <mpi-ext.h>
#endif
#endif

#include "engine.hpp"
#include "pmpi/interpose.hpp"
#include "request.hpp"

using pcoll::pmpi::Gate;

// A collective: pcoll's when the Gate lets it through.
#define PCOLL_SERVE_AS(Prefix, Name, Params, Args)                                     \
  namespace {                                                                          \
  int serve_##Prefix##Name Params {                                                    \
    PCOLL_VENDOR(P##Prefix##_##Name);                                                  \
    const Gate gate;                                                                   \
    return gate.serve() ? PCOLL_##Name Args : vendor_P##Prefix##_##Name Args;          \
  }                                                                                    \
  }                                                                                    \
  extern "C" int Prefix##_##Name Params { return serve_##Prefix##Name Args; }          \
  extern "C" int P##Prefix##_##Name Params { return serve_##Prefix##Name Args; }
#define PCOLL_SERVE(Name, Params, Args) PCOLL_SERVE_AS(MPI, Name, Params, Args)

// A completion call: pcoll's while any pcoll request exists.
#define PCOLL_COMPLETE(Name, Params, Args)                                             \
  namespace {                                                                          \
  int complete_##Name Params {                                                         \
    PCOLL_VENDOR(PMPI_##Name);                                                         \
    if (!pcoll::requests_in_use()) return vendor_PMPI_##Name Args;                     \
    const Gate gate;                                                                   \
    return gate.serve() ? PCOLL_##Name Args : vendor_PMPI_##Name Args;                 \
  }                                                                                    \
  }                                                                                    \
  extern "C" int MPI_##Name Params { return complete_##Name Args; }                    \
  extern "C" int PMPI_##Name Params { return complete_##Name Args; }

// --- MPI_Init and MPI_Init_thread -----------------------------------------------------------------
// With PCOLL_PROGRESS=thread, pcoll's progress thread needs MPI_THREAD_MULTIPLE (engine.hpp): an
// unmodified program's MPI_Init, or MPI_Init_thread at a lower level, asks for it instead. MPI
// lets `provided` exceed `required`; a program that never starts a second thread of its own sees
// no difference. Otherwise (and with PCOLL_DISABLE=1) both are the vendor's.

namespace {
bool upgrade_init() { return pcoll::progress_thread_requested() && !pcoll::pmpi::disabled(); }
int init_plain(int *argc, char ***argv) {
  PCOLL_VENDOR(PMPI_Init);
  PCOLL_VENDOR(PMPI_Init_thread);
  if (!upgrade_init()) return vendor_PMPI_Init(argc, argv);
  int provided = MPI_THREAD_SINGLE;
  return vendor_PMPI_Init_thread(argc, argv, MPI_THREAD_MULTIPLE, &provided);
}
int init_thread(int *argc, char ***argv, int required, int *provided) {
  PCOLL_VENDOR(PMPI_Init_thread);
  return vendor_PMPI_Init_thread(argc, argv, upgrade_init() ? MPI_THREAD_MULTIPLE : required,
                                 provided);
}
}  // namespace
extern "C" int MPI_Init(int *argc, char ***argv) { return init_plain(argc, argv); }
extern "C" int PMPI_Init(int *argc, char ***argv) { return init_plain(argc, argv); }
extern "C" int MPI_Init_thread(int *argc, char ***argv, int required, int *provided) {
  return init_thread(argc, argv, required, provided);
}
extern "C" int PMPI_Init_thread(int *argc, char ***argv, int required, int *provided) {
  return init_thread(argc, argv, required, provided);
}

// --- nonblocking ---------------------------------------------------------------------------------

PCOLL_SERVE(Iallreduce,
            (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
             MPI_Comm comm, MPI_Request *request),
            (sendbuf, recvbuf, count, datatype, op, comm, request))
PCOLL_SERVE(Ireduce_scatter_block,
            (const void *sendbuf, void *recvbuf, int recvcount, MPI_Datatype datatype, MPI_Op op,
             MPI_Comm comm, MPI_Request *request),
            (sendbuf, recvbuf, recvcount, datatype, op, comm, request))
PCOLL_SERVE(Ireduce_scatter,
            (const void *sendbuf, void *recvbuf, const int recvcounts[], MPI_Datatype datatype,
             MPI_Op op, MPI_Comm comm, MPI_Request *request),
            (sendbuf, recvbuf, recvcounts, datatype, op, comm, request))
PCOLL_SERVE(Iallgather,
            (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
             int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request),
            (sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, request))
PCOLL_SERVE(Iallgatherv,
            (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
             const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm,
             MPI_Request *request),
            (sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm, request))
PCOLL_SERVE(Ialltoall,
            (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
             int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request),
            (sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, request))
PCOLL_SERVE(Ialltoallv,
            (const void *sendbuf, const int sendcounts[], const int sdispls[],
             MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int rdispls[],
             MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request),
            (sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm,
             request))
PCOLL_SERVE(Ibcast,
            (void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm,
             MPI_Request *request),
            (buffer, count, datatype, root, comm, request))
PCOLL_SERVE(Ireduce,
            (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
             int root, MPI_Comm comm, MPI_Request *request),
            (sendbuf, recvbuf, count, datatype, op, root, comm, request))
PCOLL_SERVE(Ibarrier, (MPI_Comm comm, MPI_Request *request), (comm, request))

// --- persistent ----------------------------------------------------------------------------------

#define PCOLL_PERSISTENT_ALL(Prefix)                                                          \
  PCOLL_SERVE_AS(Prefix, Allreduce_init,                                                      \
                 (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,       \
                  MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request *request),             \
                 (sendbuf, recvbuf, count, datatype, op, comm, info, request))                \
  PCOLL_SERVE_AS(Prefix, Reduce_scatter_block_init,                                           \
                 (const void *sendbuf, void *recvbuf, int recvcount, MPI_Datatype datatype,   \
                  MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request *request),             \
                 (sendbuf, recvbuf, recvcount, datatype, op, comm, info, request))            \
  PCOLL_SERVE_AS(Prefix, Reduce_scatter_init,                                                 \
                 (const void *sendbuf, void *recvbuf, const int recvcounts[],                 \
                  MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info,             \
                  MPI_Request *request),                                                      \
                 (sendbuf, recvbuf, recvcounts, datatype, op, comm, info, request))           \
  PCOLL_SERVE_AS(Prefix, Allgather_init,                                                      \
                 (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,   \
                  int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,         \
                  MPI_Request *request),                                                      \
                 (sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, info,     \
                  request))                                                                   \
  PCOLL_SERVE_AS(Prefix, Allgatherv_init,                                                     \
                 (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,   \
                  const int recvcounts[], const int displs[], MPI_Datatype recvtype,          \
                  MPI_Comm comm, MPI_Info info, MPI_Request *request),                        \
                 (sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm,  \
                  info, request))                                                             \
  PCOLL_SERVE_AS(Prefix, Alltoall_init,                                                       \
                 (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,   \
                  int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,         \
                  MPI_Request *request),                                                      \
                 (sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, info,     \
                  request))                                                                   \
  PCOLL_SERVE_AS(Prefix, Alltoallv_init,                                                      \
                 (const void *sendbuf, const int sendcounts[], const int sdispls[],           \
                  MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],               \
                  const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,   \
                  MPI_Request *request),                                                      \
                 (sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls,       \
                  recvtype, comm, info, request))                                             \
  PCOLL_SERVE_AS(Prefix, Bcast_init,                                                          \
                 (void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm,    \
                  MPI_Info info, MPI_Request *request),                                       \
                 (buffer, count, datatype, root, comm, info, request))                        \
  PCOLL_SERVE_AS(Prefix, Reduce_init,                                                         \
                 (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,       \
                  MPI_Op op, int root, MPI_Comm comm, MPI_Info info, MPI_Request *request),   \
                 (sendbuf, recvbuf, count, datatype, op, root, comm, info, request))          \
  PCOLL_SERVE_AS(Prefix, Barrier_init, (MPI_Comm comm, MPI_Info info, MPI_Request *request),  \
                 (comm, info, request))

#if MPI_VERSION >= 4
PCOLL_PERSISTENT_ALL(MPI)
#endif
#if defined(OMPI_HAVE_MPI_EXT_PCOLLREQ) && OMPI_HAVE_MPI_EXT_PCOLLREQ
PCOLL_PERSISTENT_ALL(MPIX)
#endif

// --- completion ----------------------------------------------------------------------------------

PCOLL_COMPLETE(Wait, (MPI_Request * request, MPI_Status *status), (request, status))
PCOLL_COMPLETE(Test, (MPI_Request * request, int *flag, MPI_Status *status),
               (request, flag, status))
PCOLL_COMPLETE(Waitall, (int count, MPI_Request requests[], MPI_Status statuses[]),
               (count, requests, statuses))
PCOLL_COMPLETE(Testall, (int count, MPI_Request requests[], int *flag, MPI_Status statuses[]),
               (count, requests, flag, statuses))
PCOLL_COMPLETE(Waitany, (int count, MPI_Request requests[], int *index, MPI_Status *status),
               (count, requests, index, status))
PCOLL_COMPLETE(Testany,
               (int count, MPI_Request requests[], int *index, int *flag, MPI_Status *status),
               (count, requests, index, flag, status))
PCOLL_COMPLETE(Waitsome,
               (int incount, MPI_Request requests[], int *outcount, int indices[],
                MPI_Status statuses[]),
               (incount, requests, outcount, indices, statuses))
PCOLL_COMPLETE(Testsome,
               (int incount, MPI_Request requests[], int *outcount, int indices[],
                MPI_Status statuses[]),
               (incount, requests, outcount, indices, statuses))
PCOLL_COMPLETE(Request_get_status, (MPI_Request request, int *flag, MPI_Status *status),
               (request, flag, status))
PCOLL_COMPLETE(Start, (MPI_Request * request), (request))
PCOLL_COMPLETE(Startall, (int count, MPI_Request requests[]), (count, requests))
PCOLL_COMPLETE(Request_free, (MPI_Request * request), (request))
// An op held by an outstanding pcoll collective is freed when the last one is released.
PCOLL_COMPLETE(Op_free, (MPI_Op * op), (op))
