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

}  // namespace

int execute(const Plan &plan, const ExecBuffers &bufs, const Reducer &reducer, Context &ctx,
            std::vector<double> *phase_seconds) {
  std::vector<MPI_Request> &req = ctx.requests();
  const MPI_Comm comm = ctx.comm();
  for (const Round &round : plan.rounds) {
    const double t0 = phase_seconds ? MPI_Wtime() : 0.0;
    const std::size_t nr = round.recvs.size(), ns = round.sends.size();
    req.assign(nr + ns, MPI_REQUEST_NULL);
    int rc = MPI_SUCCESS;
    for (std::size_t i = 0; i < nr && rc == MPI_SUCCESS; ++i) {
      const Xfer &x = round.recvs[i];
      rc = PMPI_Irecv(address(bufs, x.range), bytes(bufs, x.range), MPI_BYTE, x.peer, kTag, comm,
                      &req[i]);
    }
    for (std::size_t i = 0; i < ns && rc == MPI_SUCCESS; ++i) {
      const Xfer &x = round.sends[i];
      rc = PMPI_Isend(address(bufs, x.range), bytes(bufs, x.range), MPI_BYTE, x.peer, kTag, comm,
                      &req[nr + i]);
    }
    bool all_recvs = nr == 0, all_sends = ns == 0;
    for (const LocalOp &op : round.ops) {
      if (rc != MPI_SUCCESS) break;
      if (op.after_recv >= 0) {
        rc = PMPI_Wait(&req[static_cast<std::size_t>(op.after_recv)], MPI_STATUS_IGNORE);
      } else if (!all_recvs) {
        rc = PMPI_Waitall(static_cast<int>(nr), req.data(), MPI_STATUSES_IGNORE);
        all_recvs = true;
      }
      if (rc == MPI_SUCCESS && op.after_sends && !all_sends) {
        rc = PMPI_Waitall(static_cast<int>(ns), req.data() + nr, MPI_STATUSES_IGNORE);
        all_sends = true;
      }
      if (rc != MPI_SUCCESS) break;
      if (op.kind == OpKind::copy) {
        std::memmove(address(bufs, op.dst), address(bufs, op.src), op.src.len * bufs.elem_bytes);
      } else {
        rc =
            reducer.apply(address(bufs, op.src), address(bufs, op.dst), op.src.len, op.src_is_left);
      }
    }
    // Completed requests are MPI_REQUEST_NULL now, so one Waitall finishes the rest.
    const int rc2 = PMPI_Waitall(static_cast<int>(nr + ns), req.data(), MPI_STATUSES_IGNORE);
    if (rc == MPI_SUCCESS) rc = rc2;
    if (rc != MPI_SUCCESS) return rc;
    if (phase_seconds) {
      if (phase_seconds->size() < plan.phases.size()) phase_seconds->resize(plan.phases.size());
      (*phase_seconds)[static_cast<std::size_t>(round.phase)] += MPI_Wtime() - t0;
    }
  }
  return MPI_SUCCESS;
}

}  // namespace pcoll
