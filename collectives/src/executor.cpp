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
int complete_all(MPI_Request *req, std::size_t n) {
  if (n == 0) return MPI_SUCCESS;
  const int rc = PMPI_Waitall(static_cast<int>(n), req, MPI_STATUSES_IGNORE);
  if (rc == MPI_SUCCESS) return rc;
  for (std::size_t i = 0; i < n; ++i)
    if (req[i] != MPI_REQUEST_NULL) PMPI_Wait(&req[i], MPI_STATUS_IGNORE);
  return rc;
}

// The common round of the recursive and ring schedules: one message each way (or only one of
// the two) and local operations that all run after it. Blocking PMPI_Sendrecv/Recv/Send do in
// one library call what Irecv+Isend+Waitall do in three, with no request bookkeeping; the
// round's semantics are unchanged (it ends when its messages are complete, as before).
bool is_simple(const Round &round) {
  if (round.recvs.size() > 1 || round.sends.size() > 1) return false;
  for (const LocalOp &op : round.ops)
    if (op.after_recv > 0) return false;  // (after_recv 0 or -1: after the one receive)
  return true;
}

int simple_transfers(const Round &round, const ExecBuffers &bufs, MPI_Comm comm) {
  const bool r = !round.recvs.empty(), s = !round.sends.empty();
  if (r && s) {
    const Xfer &x = round.sends[0], &y = round.recvs[0];
    return PMPI_Sendrecv(address(bufs, x.range), bytes(bufs, x.range), MPI_BYTE, x.peer, kTag,
                         address(bufs, y.range), bytes(bufs, y.range), MPI_BYTE, y.peer, kTag, comm,
                         MPI_STATUS_IGNORE);
  }
  if (r) {
    const Xfer &y = round.recvs[0];
    return PMPI_Recv(address(bufs, y.range), bytes(bufs, y.range), MPI_BYTE, y.peer, kTag, comm,
                     MPI_STATUS_IGNORE);
  }
  if (s) {
    const Xfer &x = round.sends[0];
    return PMPI_Send(address(bufs, x.range), bytes(bufs, x.range), MPI_BYTE, x.peer, kTag, comm);
  }
  return MPI_SUCCESS;
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
  auto run_op = [&](const LocalOp &op) {
    if (op.kind == OpKind::copy) {
      std::memmove(address(bufs, op.dst), address(bufs, op.src), op.src.len * bufs.elem_bytes);
      return true;
    }
    return note(
        reducer.apply(address(bufs, op.src), address(bufs, op.dst), op.src.len, op.src_is_left));
  };
  if (phase_seconds && phase_seconds->size() < plan.phases.size())
    phase_seconds->resize(plan.phases.size());
  for (const Round &round : plan.rounds) {
    const double t0 = phase_seconds ? MPI_Wtime() : 0.0;
    if (is_simple(round)) {
      if (note(simple_transfers(round, bufs, comm)))
        for (const LocalOp &op : round.ops)
          if (err != MPI_SUCCESS || !run_op(op)) break;
    } else {
      const std::size_t nr = round.recvs.size(), ns = round.sends.size();
      if (req.size() < nr + ns) req.resize(nr + ns);
      for (std::size_t i = 0; i < nr; ++i) {
        const Xfer &x = round.recvs[i];
        req[i] = MPI_REQUEST_NULL;
        note(PMPI_Irecv(address(bufs, x.range), bytes(bufs, x.range), MPI_BYTE, x.peer, kTag, comm,
                        &req[i]));
      }
      for (std::size_t i = 0; i < ns; ++i) {
        const Xfer &x = round.sends[i];
        req[nr + i] = MPI_REQUEST_NULL;
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
          if (!note(PMPI_Waitall(static_cast<int>(ns), req.data() + nr, MPI_STATUSES_IGNORE)))
            break;
        }
        if (!run_op(op)) break;
      }
      // Completed requests are MPI_REQUEST_NULL now, so one Waitall finishes the round, whatever
      // happened above: a round never returns with a request of ours outstanding.
      note(complete_all(req.data(), nr + ns));
    }
    if (phase_seconds) (*phase_seconds)[static_cast<std::size_t>(round.phase)] += MPI_Wtime() - t0;
  }
  return err;
}

}  // namespace pcoll
