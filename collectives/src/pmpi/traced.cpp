// The rest of MPI's collective surface in libpcoll_mpi.so: the collectives pcoll has no algorithm
// for (MPI_Gather(v), Scatter(v), Scan, Exscan, Alltoallw, the
// neighbourhood collectives) and their nonblocking forms. Each goes to the vendor's PMPI_<Coll>
// with the program's arguments, unchanged, but is traced like a pcoll call (collective, algorithm
// "vendor", count and datatype size, time per rank), so a trace of an unmodified program accounts
// for all of its collective time. A nonblocking one is traced, when tracing is on, through a pcoll
// request around the vendor's (one record from its start to its completion, with the time waited
// for it, as pcoll's own; off, the vendor's request is returned untouched). Behind the Gate like
// the others: PCOLL_DISABLE=1 and every call from inside pcoll is a plain pass-through.
//
// Before a blocking one, the pcoll operations outstanding on its communicator are completed
// (request.hpp: the vendor's blocking call cannot advance pcoll's plans while it waits).
//
// What a record's count and datatype size are: the call's send side as this rank passed it (per
// destination for the alltoall kinds, as pcoll's own records), the receive side where the send
// side is MPI_IN_PLACE or the rank only receives (scatter); for the v and w forms the sum over
// the rank's peers (w: in bytes, datatype size 1). Persistent forms (MPI_<Coll>_init) of these
// are not intercepted.
#include <pcoll/pcoll.h>

#include <cstddef>
#include <memory>

#include "config.hpp"
#include "context.hpp"
#include "pmpi/interpose.hpp"
#include "request.hpp"
#include "trace/recorder.hpp"

using pcoll::pmpi::Gate;

namespace {

std::size_t type_bytes(MPI_Datatype t) {
  int s = 0;
  if (t == MPI_DATATYPE_NULL || PMPI_Type_size(t, &s) != MPI_SUCCESS) return 0;
  return static_cast<std::size_t>(s);
}
int rank_of(MPI_Comm c) {
  int r = 0;
  PMPI_Comm_rank(c, &r);
  return r;
}
int comm_size(MPI_Comm c) {
  int p = 1;
  PMPI_Comm_size(c, &p);
  return p;
}
std::size_t sum_of(const int *counts, int n) {
  std::size_t s = 0;
  for (int i = 0; counts != nullptr && i < n; ++i) s += static_cast<std::size_t>(counts[i]);
  return s;
}
std::size_t bytes_of(const int *counts, const MPI_Datatype *types, int n) {
  std::size_t s = 0;
  for (int i = 0; counts != nullptr && types != nullptr && i < n; ++i)
    s += static_cast<std::size_t>(counts[i]) * type_bytes(types[i]);
  return s;
}
// The destinations of a neighbourhood collective on `c` (its out-degree).
int out_degree(MPI_Comm c) {
  int kind = MPI_UNDEFINED;
  PMPI_Topo_test(c, &kind);
  if (kind == MPI_CART) {
    int nd = 0;
    PMPI_Cartdim_get(c, &nd);
    return 2 * nd;
  }
  if (kind == MPI_GRAPH) {
    int n = 0;
    PMPI_Graph_neighbors_count(c, rank_of(c), &n);
    return n;
  }
  if (kind == MPI_DIST_GRAPH) {
    int in = 0, out = 0, weighted = 0;
    PMPI_Dist_graph_neighbors_count(c, &in, &out, &weighted);
    return out;
  }
  return 0;
}
bool in_place(const void *buf) {
  return buf == MPI_IN_PLACE;
}

// The communicator a record of a call on `comm` names: pcoll's context's, as for the calls pcoll
// serves (one sequence of call numbers per communicator), or MPI_COMM_NULL for no record. Only
// where tracing is on or PCOLL_TRACE asks for it: the first call on a communicator then makes its
// context (collective over comm, which every rank is calling), which also arms PCOLL_TRACE when
// this is the program's first collective; otherwise no context is made.
pcoll::Context *traced_context(MPI_Comm comm) {
  static const bool asked = !pcoll::load_config().get("trace").empty();  // PCOLL_TRACE
  if (!asked && !pcoll::trace::active()) return nullptr;
  int err = MPI_SUCCESS;
  pcoll::Context *ctx = pcoll::Context::get(comm, &err);
  if (ctx == nullptr || !pcoll::trace::active()) return nullptr;
  return ctx;
}
MPI_Comm traced_comm(MPI_Comm comm) {
  const pcoll::Context *ctx = traced_context(comm);
  return ctx != nullptr ? ctx->comm() : MPI_COMM_NULL;
}

// A blocking call: traced, then the vendor's.
template <class Vendor>
int blocking(const char *name, MPI_Comm comm, std::size_t count, std::size_t type_size,
             Vendor vendor) {
  const Gate gate;
  if (!gate.serve()) return vendor();
  pcoll::progress();
  if (pcoll::operations_outstanding())
    if (const pcoll::Context *ctx = pcoll::Context::find(comm)) pcoll::complete_outstanding_on(*ctx);
  const MPI_Comm on = traced_comm(comm);
  pcoll::trace::CallScope scope;
  if (scope.on() && on != MPI_COMM_NULL) scope.describe(on, name, "vendor", count, type_size);
  return vendor();
}

// A nonblocking call (vendor(request) starts the vendor's): with tracing on, inside a pcoll
// request whose record spans the vendor's operation.
template <class Vendor>
int nonblocking(const char *name, MPI_Comm comm, std::size_t count, std::size_t type_size,
                MPI_Request *request, Vendor vendor) {
  const Gate gate;
  if (!gate.serve() || request == nullptr) return vendor(request);
  pcoll::progress();
  pcoll::Context *ctx = traced_context(comm);
  if (ctx == nullptr) return vendor(request);
  const MPI_Comm on = ctx->comm();
  // (The vendor's call is made here, with the program's handles: the vendor keeps them alive.)
  auto op =
      std::make_unique<pcoll::VendorOperation>(pcoll::Operation::Kind::nonblocking, comm, ctx);
  op->start = [vendor](char *, MPI_Request *inner) -> int { return vendor(inner); };
  op->describe(on, name, "vendor", count, type_size);
  return pcoll::issue(std::move(op), request);
}

}  // namespace

// Blocking: Name, "name", (parameters), (arguments), count, datatype size.
#define PCOLL_TRACED(Name, name, Params, Args, Count, TypeSize)                        \
  namespace {                                                                          \
  int traced_##Name Params {                                                           \
    PCOLL_VENDOR(PMPI_##Name);                                                         \
    return blocking(name, comm, Count, TypeSize, [&] { return vendor_PMPI_##Name Args; }); \
  }                                                                                    \
  }                                                                                    \
  extern "C" int MPI_##Name Params { return traced_##Name Args; }                      \
  extern "C" int PMPI_##Name Params { return traced_##Name Args; }

// Nonblocking: the same, the last parameter `MPI_Request *request`; InnerArgs are the arguments
// with the operation's own request (`inner`) in its place, for the vendor's call.
#define PCOLL_TRACED_I(Name, name, Params, Args, InnerArgs, Count, TypeSize)           \
  namespace {                                                                          \
  int traced_##Name Params {                                                           \
    PCOLL_VENDOR(PMPI_##Name);                                                         \
    return nonblocking(name, comm, Count, TypeSize, request,                          \
                       [=](MPI_Request *inner) -> int {                                \
                         return vendor_PMPI_##Name InnerArgs;                          \
                       });                                                             \
  }                                                                                    \
  }                                                                                    \
  extern "C" int MPI_##Name Params { return traced_##Name Args; }                      \
  extern "C" int PMPI_##Name Params { return traced_##Name Args; }

// --- gather, scatter ----------------------------------------------------------------------------

#define GATHER_P(...)                                                                     \
  (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, \
   MPI_Datatype recvtype, int root, MPI_Comm comm __VA_ARGS__)
#define GATHER_A(...) (sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm __VA_ARGS__)
#define GATHER_COUNT in_place(sendbuf) ? std::size_t(recvcount) : std::size_t(sendcount)
#define GATHER_SIZE type_bytes(in_place(sendbuf) ? recvtype : sendtype)
PCOLL_TRACED(Gather, "gather", GATHER_P(), GATHER_A(), GATHER_COUNT, GATHER_SIZE)
PCOLL_TRACED_I(Igather, "igather", GATHER_P(, MPI_Request *request), GATHER_A(, request), GATHER_A(, inner),
               GATHER_COUNT, GATHER_SIZE)

#define GATHERV_P(...)                                                                    \
  (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,            \
   const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root, MPI_Comm comm __VA_ARGS__)
#define GATHERV_A(...) \
  (sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root, comm __VA_ARGS__)
#define GATHERV_COUNT \
  in_place(sendbuf) ? std::size_t(recvcounts[rank_of(comm)]) : std::size_t(sendcount)
PCOLL_TRACED(Gatherv, "gatherv", GATHERV_P(), GATHERV_A(), GATHERV_COUNT, GATHER_SIZE)
PCOLL_TRACED_I(Igatherv, "igatherv", GATHERV_P(, MPI_Request *request), GATHERV_A(, request), GATHERV_A(, inner),
               GATHERV_COUNT, GATHER_SIZE)

#define SCATTER_COUNT in_place(recvbuf) ? std::size_t(sendcount) : std::size_t(recvcount)
#define SCATTER_SIZE type_bytes(in_place(recvbuf) ? sendtype : recvtype)
PCOLL_TRACED(Scatter, "scatter", GATHER_P(), GATHER_A(), SCATTER_COUNT, SCATTER_SIZE)
PCOLL_TRACED_I(Iscatter, "iscatter", GATHER_P(, MPI_Request *request), GATHER_A(, request), GATHER_A(, inner),
               SCATTER_COUNT, SCATTER_SIZE)

#define SCATTERV_P(...)                                                                   \
  (const void *sendbuf, const int sendcounts[], const int displs[], MPI_Datatype sendtype, \
   void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm __VA_ARGS__)
#define SCATTERV_A(...) \
  (sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root, comm __VA_ARGS__)
#define SCATTERV_COUNT \
  in_place(recvbuf) ? std::size_t(sendcounts[rank_of(comm)]) : std::size_t(recvcount)
PCOLL_TRACED(Scatterv, "scatterv", SCATTERV_P(), SCATTERV_A(), SCATTERV_COUNT, SCATTER_SIZE)
PCOLL_TRACED_I(Iscatterv, "iscatterv", SCATTERV_P(, MPI_Request *request),
               SCATTERV_A(, request), SCATTERV_A(, inner), SCATTERV_COUNT, SCATTER_SIZE)

// --- scan, exscan ------------------------------------------------------------


#define SCAN_P(...) \
  (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm __VA_ARGS__)
#define SCAN_A(...) (sendbuf, recvbuf, count, datatype, op, comm __VA_ARGS__)
PCOLL_TRACED(Scan, "scan", SCAN_P(), SCAN_A(), std::size_t(count), type_bytes(datatype))
PCOLL_TRACED_I(Iscan, "iscan", SCAN_P(, MPI_Request *request), SCAN_A(, request), SCAN_A(, inner),
               std::size_t(count), type_bytes(datatype))
PCOLL_TRACED(Exscan, "exscan", SCAN_P(), SCAN_A(), std::size_t(count), type_bytes(datatype))
PCOLL_TRACED_I(Iexscan, "iexscan", SCAN_P(, MPI_Request *request), SCAN_A(, request), SCAN_A(, inner),
               std::size_t(count), type_bytes(datatype))

// --- alltoallw ----------------------------------------------------------------------------------

#define ALLTOALLW_P(...)                                                                  \
  (const void *sendbuf, const int sendcounts[], const int sdispls[],                    \
   const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[], const int rdispls[], \
   const MPI_Datatype recvtypes[], MPI_Comm comm __VA_ARGS__)
#define ALLTOALLW_A(...) \
  (sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes, comm __VA_ARGS__)
#define ALLTOALLW_BYTES(n)                                                     \
  in_place(sendbuf) ? bytes_of(recvcounts, recvtypes, n) : bytes_of(sendcounts, sendtypes, n)
PCOLL_TRACED(Alltoallw, "alltoallw", ALLTOALLW_P(), ALLTOALLW_A(),
             ALLTOALLW_BYTES(comm_size(comm)), 1)
PCOLL_TRACED_I(Ialltoallw, "ialltoallw", ALLTOALLW_P(, MPI_Request *request),
               ALLTOALLW_A(, request), ALLTOALLW_A(, inner), ALLTOALLW_BYTES(comm_size(comm)), 1)

// --- neighbourhood collectives ------------------------------------------------------------------

#define NALLGATHER_P(...)                                                                 \
  (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, \
   MPI_Datatype recvtype, MPI_Comm comm __VA_ARGS__)
#define NALLGATHER_A(...) (sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm __VA_ARGS__)
PCOLL_TRACED(Neighbor_allgather, "neighbor_allgather", NALLGATHER_P(), NALLGATHER_A(),
             std::size_t(sendcount), type_bytes(sendtype))
PCOLL_TRACED_I(Ineighbor_allgather, "ineighbor_allgather", NALLGATHER_P(, MPI_Request *request),
               NALLGATHER_A(, request), NALLGATHER_A(, inner), std::size_t(sendcount), type_bytes(sendtype))
PCOLL_TRACED(Neighbor_alltoall, "neighbor_alltoall", NALLGATHER_P(), NALLGATHER_A(),
             std::size_t(sendcount), type_bytes(sendtype))
PCOLL_TRACED_I(Ineighbor_alltoall, "ineighbor_alltoall", NALLGATHER_P(, MPI_Request *request),
               NALLGATHER_A(, request), NALLGATHER_A(, inner), std::size_t(sendcount), type_bytes(sendtype))

#define NALLGATHERV_P(...)                                                                \
  (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,            \
   const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm __VA_ARGS__)
#define NALLGATHERV_A(...) \
  (sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm __VA_ARGS__)
PCOLL_TRACED(Neighbor_allgatherv, "neighbor_allgatherv", NALLGATHERV_P(), NALLGATHERV_A(),
             std::size_t(sendcount), type_bytes(sendtype))
PCOLL_TRACED_I(Ineighbor_allgatherv, "ineighbor_allgatherv",
               NALLGATHERV_P(, MPI_Request *request), NALLGATHERV_A(, request), NALLGATHERV_A(, inner),
               std::size_t(sendcount), type_bytes(sendtype))

#define NALLTOALLV_P(...)                                                                 \
  (const void *sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype, \
   void *recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype,   \
   MPI_Comm comm __VA_ARGS__)
#define NALLTOALLV_A(...) \
  (sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm __VA_ARGS__)
PCOLL_TRACED(Neighbor_alltoallv, "neighbor_alltoallv", NALLTOALLV_P(), NALLTOALLV_A(),
             sum_of(sendcounts, out_degree(comm)), type_bytes(sendtype))
PCOLL_TRACED_I(Ineighbor_alltoallv, "ineighbor_alltoallv", NALLTOALLV_P(, MPI_Request *request),
               NALLTOALLV_A(, request), NALLTOALLV_A(, inner), sum_of(sendcounts, out_degree(comm)), type_bytes(sendtype))

#define NALLTOALLW_P(...)                                                                 \
  (const void *sendbuf, const int sendcounts[], const MPI_Aint sdispls[],               \
   const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],               \
   const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm __VA_ARGS__)
PCOLL_TRACED(Neighbor_alltoallw, "neighbor_alltoallw", NALLTOALLW_P(), ALLTOALLW_A(),
             bytes_of(sendcounts, sendtypes, out_degree(comm)), 1)
PCOLL_TRACED_I(Ineighbor_alltoallw, "ineighbor_alltoallw", NALLTOALLW_P(, MPI_Request *request),
               ALLTOALLW_A(, request), ALLTOALLW_A(, inner), bytes_of(sendcounts, sendtypes, out_degree(comm)), 1)
