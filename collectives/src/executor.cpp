#include "executor.hpp"

#include <cstring>

#include "context.hpp"

namespace pcoll {

namespace {

constexpr int kTag = 0x7c01;  // on the private communicator: never seen by the application

char *address(const ExecBuffers &b, const Range &r) {
  char *base = nullptr;
  switch (r.buf) {
    case Buf::in:
      base = const_cast<char *>(static_cast<const char *>(b.in));
      break;
    case Buf::out:
      base = static_cast<char *>(b.out);
      break;
    case Buf::tmp:
      base = static_cast<char *>(b.tmp);
      break;
  }
  return base + r.off * b.elem_bytes;
}

int bytes(const ExecBuffers &b, const Range &r) {
  return static_cast<int>(r.len * b.elem_bytes);
}

// Completes every request of the round. Waitall may stop at a failed request (MPI_ERR_IN_STATUS
// leaves the others pending): wait for the rest one by one, so none stays outstanding.
int complete_all(std::vector<MPI_Request> &req) {
  const int rc = PMPI_Waitall(static_cast<int>(req.size()), req.data(), MPI_STATUSES_IGNORE);
  if (rc == MPI_SUCCESS) return rc;
  for (MPI_Request &r : req)
    if (r != MPI_REQUEST_NULL) PMPI_Wait(&r, MPI_STATUS_IGNORE);
  return rc;
}

}  // namespace

int execute(const Plan &plan, const ExecBuffers &bufs, const Reducer &reducer, Context &ctx,
            std::vector<double> *phase_seconds) {
  std::vector<MPI_Request> &req = ctx.requests();
  const MPI_Comm comm = ctx.comm();
  // MPICH's errflag: after the first error (a failed post, wait or reduction) this rank keeps
  // posting and completing every remaining transfer of the plan, so that no peer is left waiting
  // for a message that will never come; it only skips the local operations (the data is
  // meaningless by then) and returns the first error at the end.
  int err = MPI_SUCCESS;
  auto note = [&err](int rc) {
    if (err == MPI_SUCCESS && rc != MPI_SUCCESS) err = rc;
    return rc == MPI_SUCCESS;
  };
  for (const Round &round : plan.rounds) {
    const double t0 = phase_seconds ? MPI_Wtime() : 0.0;
    const std::size_t nr = round.recvs.size(), ns = round.sends.size();
    req.assign(nr + ns, MPI_REQUEST_NULL);
    for (std::size_t i = 0; i < nr; ++i) {
      const Xfer &x = round.recvs[i];
      note(PMPI_Irecv(address(bufs, x.range), bytes(bufs, x.range), MPI_BYTE, x.peer, kTag, comm,
                      &req[i]));
    }
    for (std::size_t i = 0; i < ns; ++i) {
      const Xfer &x = round.sends[i];
      note(PMPI_Isend(address(bufs, x.range), bytes(bufs, x.range), MPI_BYTE, x.peer, kTag, comm,
                      &req[nr + i]));
    }
    bool all_recvs = nr == 0, all_sends = ns == 0;
    for (const LocalOp &op : round.ops) {
      if (err != MPI_SUCCESS) break;
      if (op.after_recv >= 0) {
        if (!note(PMPI_Wait(&req[static_cast<std::size_t>(op.after_recv)], MPI_STATUS_IGNORE)))
          break;
      } else if (!all_recvs) {
        all_recvs = true;
        if (!note(PMPI_Waitall(static_cast<int>(nr), req.data(), MPI_STATUSES_IGNORE))) break;
      }
      if (op.after_sends && !all_sends) {
        all_sends = true;
        if (!note(PMPI_Waitall(static_cast<int>(ns), req.data() + nr, MPI_STATUSES_IGNORE))) break;
      }
      if (op.kind == OpKind::copy) {
        std::memmove(address(bufs, op.dst), address(bufs, op.src), op.src.len * bufs.elem_bytes);
      } else if (!note(reducer.apply(address(bufs, op.src), address(bufs, op.dst), op.src.len,
                                     op.src_is_left))) {
        break;
      }
    }
    // Completed requests are MPI_REQUEST_NULL now, so one Waitall finishes the round, whatever
    // happened above: a round never returns with a request of ours outstanding.
    note(complete_all(req));
    if (phase_seconds) {
      if (phase_seconds->size() < plan.phases.size()) phase_seconds->resize(plan.phases.size());
      (*phase_seconds)[static_cast<std::size_t>(round.phase)] += MPI_Wtime() - t0;
    }
  }
  return err;
}

}  // namespace pcoll
