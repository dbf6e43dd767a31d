// The one executor: runs a Plan with nonblocking point-to-point on the private communicator.
//
// Per round: post every receive, then every send; run the local operations in plan order, each
// waiting only for the receive it depends on (so the reduction of an early segment overlaps the
// transfer of later ones, while the order of reductions, and so the bits of the result, stays
// fixed); complete the round. A round of at most one message each way whose operations all wait
// for its receive (recursive doubling, ring, most tree steps) is one blocking PMPI_Sendrecv (or
// Send, or Recv) instead: the same semantics with a third of the library calls and no requests.
// Messages travel as MPI_BYTE: the plan only uses contiguous datatypes, and the reduction uses
// the real datatype.
#pragma once

#include <mpi.h>

#include <vector>

#include "plan.hpp"
#include "reduce.hpp"

namespace pcoll {

class Context;

struct ExecBuffers {
  const void *in = nullptr;  // user send buffer (== out for MPI_IN_PLACE)
  void *out = nullptr;
  void *tmp = nullptr;
  std::size_t elem_bytes = 0;
};

// Runs `plan`. When phase_seconds is not null, the time spent in each phase is added to it
// (indexed like plan.phases). Returns an MPI error code: the first error of the call. After an
// error the remaining transfers of the plan are still posted and completed (its local operations
// are skipped), so that peers following the same schedule are never left blocked.
int execute(const Plan &plan, const ExecBuffers &bufs, const Reducer &reducer, Context &ctx,
            std::vector<double> *phase_seconds);

}  // namespace pcoll
