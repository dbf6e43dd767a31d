// The one executor: runs a Plan with nonblocking point-to-point on the private communicator,
// as a resumable state machine (Cursor) that both the blocking and the nonblocking calls use.
//
// Per round: post every receive, then every send; run the local operations in plan order, each
// waiting only for the receive it depends on (so the reduction of an early segment overlaps the
// transfer of later ones, while the order of reductions, and so the bits of the result, stays
// fixed); complete the round. A round of at most one message each way whose operations all wait
// for its receive (recursive doubling, ring, most tree steps) is one blocking PMPI_Sendrecv (or
// Send, or Recv) instead when the call blocks: the same semantics with a third of the library
// calls and no requests. Messages travel as MPI_BYTE: the plan only uses contiguous datatypes,
// and the reduction uses the real datatype.
//
// A blocking call runs the cursor to the end with waits (run_blocking); a nonblocking one
// advances it with tests whenever the program gives pcoll the chance (advance), and stops at the
// first transfer not yet complete. Both go through the same rounds, the same operations in the
// same order, so a nonblocking call's result is bit-identical to its blocking twin's.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <vector>

#include "plan.hpp"
#include "reduce.hpp"
#include "shm/segment.hpp"

namespace pcoll {

class Context;

struct ExecBuffers {
  const void *in = nullptr;  // user send buffer (== out for MPI_IN_PLACE)
  void *out = nullptr;
  void *tmp = nullptr;
  std::size_t elem_bytes = 0;
  // Shared-memory plans (uses_node): the channel this call uses; Buf::node is its data area.
  NodeChannel node;
};

// The tag of blocking calls on the private communicator. Nonblocking and persistent calls use
// tags 1..kNonblockingTags by sequence number (the calls on a communicator are issued in the
// same order on every rank, so the n-th one has the same tag everywhere), so that several
// outstanding collectives on one communicator never match each other's messages.
constexpr int kBlockingTag = 0x7c01;
constexpr int kNonblockingTags = 16384;
// Persistent calls: a tag fixed at init, by init order, from the range between the nonblocking
// tags and the blocking tag (every tag stays below MPI's guaranteed MPI_TAG_UB of 32767). Two
// persistent operations of one communicator share a tag only if 15360 others were initialised
// between them, and then they must also be outstanding at once to meet.
constexpr int kPersistentTagBase = kNonblockingTags + 1;
constexpr int kPersistentTags = kBlockingTag - kPersistentTagBase;

// A plan in progress. Errors follow MPICH's errflag: after the first error (a failed post, wait
// or reduction) the cursor still posts and completes every remaining transfer of the plan, so
// that no peer is left waiting for a message that will never come; it only skips the local
// operations (the data is meaningless by then) and reports the first error at the end.
class Cursor {
 public:
  // Points the cursor at the first round of `plan`. `reducer` and `plan` must outlive the run;
  // `req` holds the requests of the round in flight (the context's, for blocking calls).
  void reset(const Plan *plan, const ExecBuffers &bufs, const Reducer *reducer, MPI_Comm comm,
             int tag, std::vector<MPI_Request> *req) {
    plan_ = plan;
    bufs_ = bufs;
    reducer_ = reducer;
    comm_ = comm;
    tag_ = tag;
    req_ = req;
    round_ = op_ = 0;
    posted_ = false;
    err_ = MPI_SUCCESS;
    shm_ = plan != nullptr && uses_node(*plan);
    entered_ = waited_ = false;
    polls_ = 0;
  }
  // Runs the rest of the plan, blocking. When phase_seconds is not null, the time spent in each
  // phase is added to it (indexed like plan.phases). Returns the first error of the call.
  int run_blocking(std::vector<double> *phase_seconds);
  // Makes what progress it can without blocking; true when the plan is complete. The time spent
  // inside, per phase, is added to phase_seconds when not null.
  bool advance(std::vector<double> *phase_seconds);
  int error() const { return err_; }
  // The requests of the round in flight not yet known complete, for a caller that blocks on
  // them (with others) instead of polling: it must set each one it completes to
  // MPI_REQUEST_NULL, as a test would, and report a failure with note_failure.
  void pending(std::vector<MPI_Request *> &out) const {
    if (plan_ == nullptr || !posted_ || round_ >= plan_->rounds.size()) return;
    const Round &r = plan_->rounds[round_];
    for (std::size_t i = 0; i < r.recvs.size() + r.sends.size(); ++i)
      if ((*req_)[i] != MPI_REQUEST_NULL) out.push_back(&(*req_)[i]);
  }
  void note_failure(int rc) { note(rc); }
  // Whether the plan may still wait for, or raise, node-segment flags: no MPI request tells when
  // a peer raises one, so a caller must keep polling (not block in a vendor wait) while it is.
  bool polls_memory() const { return shm_; }
  // The plan phase of the round in flight (-1 when complete or without a plan).
  int phase() const {
    return plan_ != nullptr && round_ < plan_->rounds.size() ? plan_->rounds[round_].phase : -1;
  }

 private:
  template <bool Block>
  bool step(std::vector<double> *phase_seconds);
  template <bool Block>
  int wait_some(MPI_Request *r, std::size_t n);
  bool note(int rc) {
    if (err_ == MPI_SUCCESS && rc != MPI_SUCCESS) err_ = rc;
    return rc == MPI_SUCCESS;
  }
  bool run_op(const LocalOp &op);
  // Shared-memory plans: whether the flags this point waits for are raised (blocking: waits).
  template <bool Block>
  bool flags_ready(const Round *round);

  const Plan *plan_ = nullptr;
  ExecBuffers bufs_;
  const Reducer *reducer_ = nullptr;
  MPI_Comm comm_ = MPI_COMM_NULL;
  int tag_ = kBlockingTag;
  std::vector<MPI_Request> *req_ = nullptr;
  std::size_t round_ = 0, op_ = 0;
  bool posted_ = false, all_recvs_ = false, all_sends_ = false;
  int err_ = MPI_SUCCESS;
  // Shared-memory plans: the call's entry wait (the channel's previous generation done on every
  // rank of the node) passed; the current round's waits passed; failed polls since the last
  // success (past NodeChannel::spin, a nonblocking cursor yields the core at each).
  bool shm_ = false, entered_ = false, waited_ = false;
  long long polls_ = 0;
};

// Runs `plan` to its end as a blocking call on ctx's private communicator (Cursor::run_blocking).
int execute(const Plan &plan, const ExecBuffers &bufs, const Reducer &reducer, Context &ctx,
            std::vector<double> *phase_seconds);

}  // namespace pcoll
