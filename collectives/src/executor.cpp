#include "executor.hpp"

#include <cstring>

#include "context.hpp"

namespace pcoll {

namespace {

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
    case Buf::node:
      base = b.node.data();
      break;
    case Buf::line:
      base = b.node.lines();
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

// The nonblocking twin of complete_all: true when every request of the round is complete. A
// request whose test fails counts as complete (its error is the call's), so that an error never
// leaves a cursor polling forever.
bool test_all(MPI_Request *req, std::size_t n, int *err) {
  if (n == 0) return true;
  int flag = 0;
  const int rc = PMPI_Testall(static_cast<int>(n), req, &flag, MPI_STATUSES_IGNORE);
  if (rc == MPI_SUCCESS) return flag != 0;
  if (*err == MPI_SUCCESS) *err = rc;
  bool all = true;
  for (std::size_t i = 0; i < n; ++i) {
    if (req[i] == MPI_REQUEST_NULL) continue;
    int one = 0;
    if (PMPI_Test(&req[i], &one, MPI_STATUS_IGNORE) != MPI_SUCCESS)
      req[i] = MPI_REQUEST_NULL;
    else if (!one)
      all = false;
  }
  return all;
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

int simple_transfers(const Round &round, const ExecBuffers &bufs, MPI_Comm comm, int tag) {
  const bool r = !round.recvs.empty(), s = !round.sends.empty();
  if (r && s) {
    const Xfer &x = round.sends[0], &y = round.recvs[0];
    return PMPI_Sendrecv(address(bufs, x.range), bytes(bufs, x.range), MPI_BYTE, x.peer, tag,
                         address(bufs, y.range), bytes(bufs, y.range), MPI_BYTE, y.peer, tag, comm,
                         MPI_STATUS_IGNORE);
  }
  if (r) {
    const Xfer &y = round.recvs[0];
    return PMPI_Recv(address(bufs, y.range), bytes(bufs, y.range), MPI_BYTE, y.peer, tag, comm,
                     MPI_STATUS_IGNORE);
  }
  if (s) {
    const Xfer &x = round.sends[0];
    return PMPI_Send(address(bufs, x.range), bytes(bufs, x.range), MPI_BYTE, x.peer, tag, comm);
  }
  return MPI_SUCCESS;
}

}  // namespace

bool Cursor::run_op(const LocalOp &op) {
  if (op.kind == OpKind::copy) {
    std::memmove(address(bufs_, op.dst), address(bufs_, op.src), op.src.len * bufs_.elem_bytes);
    return true;
  }
  return note(
      reducer_->apply(address(bufs_, op.src), address(bufs_, op.dst), op.src.len, op.src_is_left));
}

// 1 when the n requests are complete (with any error noted), 0 when some are not yet (never
// when blocking).
template <bool Block>
int Cursor::wait_some(MPI_Request *r, std::size_t n) {
  if (n == 0) return 1;
  if constexpr (Block) {
    note(n == 1 ? PMPI_Wait(r, MPI_STATUS_IGNORE)
                : PMPI_Waitall(static_cast<int>(n), r, MPI_STATUSES_IGNORE));
    return 1;
  } else {
    int flag = 0;
    const int rc = n == 1 ? PMPI_Test(r, &flag, MPI_STATUS_IGNORE)
                          : PMPI_Testall(static_cast<int>(n), r, &flag, MPI_STATUSES_IGNORE);
    if (!note(rc)) return 1;  // the round's completion below finishes what is left
    return flag != 0;
  }
}

// round == nullptr: the call's entry (every rank of the node done with the channel's previous
// generation); else the round's waits. A flag is read with acquire: what its rank wrote before
// raising it is visible here. After an error the waits still run: a peer that raised its flag
// went on, and one that failed raised it too (errors skip only the local operations), so no
// rank is left behind.
template <bool Block>
bool Cursor::flags_ready(const Round *round) {
  const NodeChannel &ch = bufs_.node;
  const int n = ch.seg->ranks();
  auto all = [&] {
    if (round == nullptr) {
      // (this rank included: its own previous call on the channel may still be reading the
      // slots, or be about to raise its flag, when this one starts)
      for (int q = 0; q < n; ++q)
        if (!ch.previous_done(q)) return false;
      return true;
    }
    for (const Wait &w : round->waits)
      if (!ch.reached(w.peer, static_cast<std::uint64_t>(w.signal))) return false;
    return true;
  };
  if constexpr (Block) {
    wait_until(all, ch.spin, comm_);
    return true;
  } else {
    if (all()) {
      polls_ = 0;
      return true;
    }
    idle_poll(polls_++, ch.spin, comm_);
    return false;
  }
}

template <bool Block>
bool Cursor::step(std::vector<double> *phase_seconds) {
  if (phase_seconds && phase_seconds->size() < plan_->phases.size())
    phase_seconds->resize(plan_->phases.size());
  if (shm_ && !entered_) {
    if (!bufs_.node.known_free && !flags_ready<Block>(nullptr)) return false;
    entered_ = true;
  }
  while (round_ < plan_->rounds.size()) {
    const Round &round = plan_->rounds[round_];
    double t0 = phase_seconds ? MPI_Wtime() : 0.0;
    bool finished = false;
    const std::size_t nr = round.recvs.size(), ns = round.sends.size();
    if (!waited_ && !round.waits.empty()) {
      const bool ready = flags_ready<Block>(&round);
      if (phase_seconds) {
        const double t1 = MPI_Wtime();
        (*phase_seconds)[static_cast<std::size_t>(round.phase)] += t1 - t0;
        t0 = t1;
      }
      if (!ready) return false;
    }
    waited_ = true;
    if (!posted_) {
      if (Block && is_simple(round)) {
        if (note(simple_transfers(round, bufs_, comm_, tag_)))
          for (const LocalOp &op : round.ops)
            if (err_ != MPI_SUCCESS || !run_op(op)) break;
        finished = true;
      } else {
        std::vector<MPI_Request> &req = *req_;
        if (req.size() < nr + ns) req.resize(nr + ns);
        for (std::size_t i = 0; i < nr; ++i) {
          const Xfer &x = round.recvs[i];
          req[i] = MPI_REQUEST_NULL;
          note(PMPI_Irecv(address(bufs_, x.range), bytes(bufs_, x.range), MPI_BYTE, x.peer, tag_,
                          comm_, &req[i]));
        }
        for (std::size_t i = 0; i < ns; ++i) {
          const Xfer &x = round.sends[i];
          req[nr + i] = MPI_REQUEST_NULL;
          note(PMPI_Isend(address(bufs_, x.range), bytes(bufs_, x.range), MPI_BYTE, x.peer, tag_,
                          comm_, &req[nr + i]));
        }
        posted_ = true;
        op_ = 0;
        all_recvs_ = nr == 0;
        all_sends_ = ns == 0;
      }
    }
    if (!finished) {
      MPI_Request *req = req_->data();
      bool waiting = false;
      for (; op_ < round.ops.size(); ++op_) {
        if (err_ != MPI_SUCCESS) break;
        const LocalOp &op = round.ops[op_];
        if (op.after_recv >= 0) {
          if (!wait_some<Block>(&req[static_cast<std::size_t>(op.after_recv)], 1)) {
            waiting = true;
            break;
          }
        } else if (!all_recvs_) {
          if (!wait_some<Block>(req, nr)) {
            waiting = true;
            break;
          }
          all_recvs_ = true;
        }
        if (err_ != MPI_SUCCESS) break;
        if (op.after_sends && !all_sends_) {
          if (!wait_some<Block>(req + nr, ns)) {
            waiting = true;
            break;
          }
          all_sends_ = true;
          if (err_ != MPI_SUCCESS) break;
        }
        if (!run_op(op)) break;
      }
      if (!waiting) {
        if (err_ != MPI_SUCCESS) op_ = round.ops.size();  // an error skips the rest
        // Completed requests are MPI_REQUEST_NULL now, so one Waitall finishes the round,
        // whatever happened above: a round never ends with a request of ours outstanding.
        if constexpr (Block) {
          note(complete_all(req, nr + ns));
          finished = true;
        } else {
          finished = test_all(req, nr + ns, &err_);
        }
      }
    }
    if (phase_seconds) (*phase_seconds)[static_cast<std::size_t>(round.phase)] += MPI_Wtime() - t0;
    if (!finished) return false;
    // (release: everything this round wrote is visible to a rank that sees the flag)
    if (round.signal > 0) bufs_.node.raise(static_cast<std::uint64_t>(round.signal));
    posted_ = waited_ = false;
    ++round_;
  }
  if (shm_ && entered_) {
    bufs_.node.finish();
    entered_ = false;  // (finished once; a cursor is reset before it runs again)
    shm_ = false;
  }
  return true;
}

int Cursor::run_blocking(std::vector<double> *phase_seconds) {
  if (plan_ != nullptr) step<true>(phase_seconds);
  return err_;
}

bool Cursor::advance(std::vector<double> *phase_seconds) {
  return plan_ == nullptr || step<false>(phase_seconds);
}

int execute(const Plan &plan, const ExecBuffers &bufs, const Reducer &reducer, Context &ctx,
            std::vector<double> *phase_seconds) {
  Cursor c;
  c.reset(&plan, bufs, &reducer, ctx.comm(), kBlockingTag, &ctx.requests());
  return c.run_blocking(phase_seconds);
}

}  // namespace pcoll
