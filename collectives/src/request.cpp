// The engine (request.hpp): the table of every operation pcoll holds (OperationTable), how an
// operation is issued, started and advanced (progress), and the held datatypes and ops. The
// completion calls that finish its requests are in completion.cpp.
#include "request.hpp"

#include <pcoll/pcoll.h>

#include <algorithm>
#include <atomic>
#include <string>
#include <unordered_map>
#include <vector>

#include "context.hpp"
#include "engine.hpp"

namespace pcoll {

namespace {

// User ops held by outstanding operations (HeldHandles), and whether the program freed them.
struct HeldOp {
  int holds = 0;
  bool free_pending = false;
};

// The engine's table of operations: every operation pcoll holds, in one object (one per process,
// used under the engine lock, engine.hpp).
struct OperationTable {
  // Started and not complete, in the order they were started (progress goes through them in it).
  std::vector<Operation *> active;
  // Persistent operations by their token.
  std::unordered_map<MPI_Request, std::unique_ptr<Operation>> persistent;
  // Nonblocking operations that MPI freed (free_fn) after the engine was done with them: deleted
  // at the next entry into pcoll, not inside the vendor's completion call that ran free_fn (their
  // destructor frees datatypes and may free a context's communicator).
  std::vector<Operation *> released;
  std::unordered_map<MPI_Op, HeldOp> held_ops;
  // active.size() + persistent.size(), kept beside them (under the engine lock) for
  // requests_in_use(), which libpcoll_mpi.so's completion calls read before they take the lock.
  std::atomic<std::size_t> in_use{0};
  void count_in_use() {
    in_use.store(active.size() + persistent.size(), std::memory_order_release);
  }
};
OperationTable g_ops;

}  // namespace

// MPI's empty status with an error field: what a completed collective reports.
void empty_status(MPI_Status *st, int err) {
  if (st == MPI_STATUS_IGNORE) return;
  st->MPI_SOURCE = MPI_ANY_SOURCE;
  st->MPI_TAG = MPI_ANY_TAG;
  st->MPI_ERROR = err;
  PMPI_Status_set_elements(st, MPI_BYTE, 0);
  PMPI_Status_set_cancelled(st, 0);
}

namespace {

// The generalized request's callbacks (nonblocking operations). MPI calls query_fn when a wait
// or test completes the request (its return value is the completion's error), free_fn once the
// request is freed. The operation is deleted by whichever of free_fn and the engine's
// completion comes last.
int query_fn(void *extra, MPI_Status *status) {
  const auto *op = static_cast<Operation *>(extra);
  empty_status(status, op->err_);
  return op->err_;
}
int free_fn(void *extra) {
  auto *op = static_cast<Operation *>(extra);
  op->mpi_freed_ = true;
  if (op->engine_done_) g_ops.released.push_back(op);
  return MPI_SUCCESS;
}

void delete_released() {
  while (!g_ops.released.empty()) {
    Operation *op = g_ops.released.back();
    g_ops.released.pop_back();
    delete op;
  }
}
int cancel_fn(void *, int) {
  return MPI_SUCCESS;  // a collective cannot be cancelled (MPI): nothing happens
}

void finish(Operation *op) {
  op->record.close();
  op->active_ = false;
  if (op->kind() != Operation::Kind::nonblocking) return;
  const MPI_Request h = op->handle;
  const bool freed = op->mpi_freed_;
  op->engine_done_ = true;
  PMPI_Grequest_complete(h);  // (may call free_fn, which then hands op to g_ops.released)
  if (freed) delete op;
}

}  // namespace

Operation *persistent_of(MPI_Request r) {
  if (g_ops.persistent.empty() || r == MPI_REQUEST_NULL) return nullptr;
  const auto it = g_ops.persistent.find(r);
  return it == g_ops.persistent.end() ? nullptr : it->second.get();
}

// A persistent operation's completion by a wait or test: its status and error, then inactive.
int complete_persistent(Operation *op, MPI_Status *st) {
  const int e = op->mpi_active_ ? op->err_ : MPI_SUCCESS;
  op->mpi_active_ = false;
  op->err_ = MPI_SUCCESS;
  empty_status(st, e);
  return e;
}

namespace {
int call_errhandler(MPI_Comm comm, int code) {
  if (code != MPI_SUCCESS && comm != MPI_COMM_NULL) MPI_Comm_call_errhandler(comm, code);
  return code;
}
}  // namespace

// An operation's error through its communicator's handler; returned alone once the program has
// freed the communicator (its handle may name another communicator by now).
int op_error(const Operation *op, int code) {
  return op->context().user_freed() ? code : call_errhandler(op->user_comm(), code);
}

int start_one(MPI_Request *request) {
  Operation *op = persistent_of(*request);
  if (op == nullptr) return PMPI_Start(request);
  if (op->mpi_active_) {
    report("MPI_Start: the persistent collective request is still active");
    return op_error(op, MPI_ERR_REQUEST);
  }
  progress();
  op->err_ = MPI_SUCCESS;
  op->open_record();
  if (const int rc = op->begin(); rc != MPI_SUCCESS) {
    op->record.close();
    return op_error(op, rc);
  }
  op->mpi_active_ = true;
  op->active_ = true;
  if (op->advance()) {
    finish(op);
  } else {
    g_ops.active.push_back(op);
    g_ops.count_in_use();
    progress_thread_wake();
  }
  return MPI_SUCCESS;
}

bool any_persistent_token(int n, const MPI_Request *reqs) {
  if (g_ops.persistent.empty()) return false;
  for (int i = 0; i < n; ++i)
    if (persistent_of(reqs[i]) != nullptr) return true;
  return false;
}

// Blocks until a transfer of an outstanding operation completes: one PMPI_Waitsome over all of
// their pending requests, instead of a loop of tests (one library call per completion, and the
// MPI library may wait as it likes). False when none is pending or an operation polls
// shared-memory flags (the caller then polls). Only for a caller that waits for pcoll
// operations alone: a user's request completing meanwhile would not end the wait.
//
// Not in SMPI builds: there (SimGrid 3.32) a rank blocked in PMPI_Waitsome (or Waitany) on the
// receive of a round never saw its peer's message, which the peer had sent (detached) before
// moving on to its next call; polling with tests, each costing smpi/test, works.
bool block_once() {
#ifdef PCOLL_SMPI
  return false;
#endif
  thread_local std::vector<MPI_Request *> slots;
  thread_local std::vector<Operation *> owner;
  thread_local std::vector<MPI_Request> reqs;
  slots.clear();
  owner.clear();
  for (Operation *op : g_ops.active) {
    // A shared-memory operation moves on only when polled: blocking in the vendor's wait on
    // the others' transfers would leave its peers waiting for this rank's flags while this
    // rank waits for theirs (MPICH's nonblocking3 hung so at P = 5..7). The caller polls.
    if (op->polls_memory()) return false;
    op->pending(slots);
    owner.resize(slots.size(), op);
  }
  if (slots.empty()) return false;
  reqs.resize(slots.size());
  for (std::size_t i = 0; i < slots.size(); ++i) reqs[i] = *slots[i];
  thread_local std::vector<int> done;
  done.resize(slots.size());
  int n = 0;
  const int rc = PMPI_Waitsome(static_cast<int>(reqs.size()), reqs.data(), &n, done.data(),
                               MPI_STATUSES_IGNORE);
  if (n == MPI_UNDEFINED) return false;
  for (int k = 0; k < n; ++k) {
    const auto i = static_cast<std::size_t>(done[static_cast<std::size_t>(k)]);
    *slots[i] = MPI_REQUEST_NULL;
    if (rc != MPI_SUCCESS) owner[i]->failed(rc);
  }
  return true;
}

bool outstanding_handle(MPI_Request r) {
  return r != MPI_REQUEST_NULL &&
         std::any_of(g_ops.active.begin(), g_ops.active.end(),
                     [r](const Operation *op) { return op->handle == r; });
}

Operation::Operation(Kind kind, MPI_Comm user_comm, Context *ctx)
    : kind_(kind), user_comm_(user_comm), ctx_(ctx) {
  ctx_->hold();
}

Operation::~Operation() {
  ctx_->release();  // (may delete the context: last)
}

namespace {
bool named_type(MPI_Datatype t) {
  int ni = 0, na = 0, nd = 0, combiner = MPI_COMBINER_NAMED;
  PMPI_Type_get_envelope(t, &ni, &na, &nd, &combiner);
  return combiner == MPI_COMBINER_NAMED;
}
}  // namespace

MPI_Datatype HeldHandles::type(MPI_Datatype t) {
  if (t == MPI_DATATYPE_NULL || named_type(t)) return t;
  for (const auto &p : types_)
    if (p.first == t) return p.second;
  MPI_Datatype dup = MPI_DATATYPE_NULL;
  if (PMPI_Type_dup(t, &dup) != MPI_SUCCESS) return t;  // (then the program's own handle)
  types_.emplace_back(t, dup);
  return dup;
}

void HeldHandles::op(MPI_Op o) {
  if (o == MPI_OP_NULL || is_predefined_op(o) || op_ != MPI_OP_NULL) return;
  op_ = o;
  ++g_ops.held_ops[o].holds;
}

HeldHandles::~HeldHandles() {
  for (auto &p : types_) PMPI_Type_free(&p.second);
  if (op_ == MPI_OP_NULL) return;
  const auto it = g_ops.held_ops.find(op_);
  if (it == g_ops.held_ops.end() || --it->second.holds > 0) return;
  if (it->second.free_pending) PMPI_Op_free(&op_);
  g_ops.held_ops.erase(it);
}

int free_op(MPI_Op *op) {
  if (op != nullptr && *op != MPI_OP_NULL) {
    const auto it = g_ops.held_ops.find(*op);
    if (it != g_ops.held_ops.end()) {
      it->second.free_pending = true;
      *op = MPI_OP_NULL;
      return MPI_SUCCESS;
    }
  }
  return PMPI_Op_free(op);
}

int free_persistent(Operation *op, MPI_Request *request) {
  if (op->mpi_active_) {
    report("MPI_Request_free: the persistent collective request is active (MPI: erroneous)");
    return op_error(op, MPI_ERR_REQUEST);
  }
  MPI_Request token = *request;
  g_ops.persistent.erase(token);
  g_ops.count_in_use();
  *request = MPI_REQUEST_NULL;
  return PMPI_Request_free(&token);
}

int next_nonblocking_tag(Context &ctx) {
  return ctx.next_nonblocking_tag(kNonblockingTags);
}

bool operations_outstanding() { return !g_ops.active.empty(); }

int wait_while_progressing(MPI_Request *request, MPI_Status *status) {
  while (operations_outstanding()) {
    progress();
    int flag = 0;
    const int rc = PMPI_Test(request, &flag, status);
    if (rc != MPI_SUCCESS || flag) return rc;
  }
  return PMPI_Wait(request, status);
}

int execute_while_progressing(const Plan &plan, const ExecBuffers &bufs, const Reducer &reducer,
                      Context &ctx, std::vector<double> *phase_seconds) {
  Cursor c;
  c.reset(&plan, bufs, &reducer, ctx.comm(), kBlockingTag, &ctx.requests());
  while (!c.advance(phase_seconds)) {
    const int ph = c.phase();
    const double t0 = phase_seconds != nullptr ? MPI_Wtime() : 0.0;
    progress();
    if (phase_seconds != nullptr && ph >= 0 && static_cast<std::size_t>(ph) < phase_seconds->size())
      (*phase_seconds)[static_cast<std::size_t>(ph)] += MPI_Wtime() - t0;
  }
  return c.error();
}

void complete_outstanding_on(const Context &ctx) {
  auto on_comm = [&ctx] {
    return std::any_of(g_ops.active.begin(), g_ops.active.end(),
                       [&ctx](const Operation *op) { return &op->context() == &ctx; });
  };
  while (on_comm()) progress();
}

bool requests_in_use() {
  return g_ops.in_use.load(std::memory_order_acquire) != 0;
}

void progress() {
  if (!g_ops.released.empty()) delete_released();
  if (g_ops.active.empty()) return;
  for (std::size_t i = 0; i < g_ops.active.size();) {
    Operation *op = g_ops.active[i];
    if (op->advance()) {
      g_ops.active.erase(g_ops.active.begin() + static_cast<std::ptrdiff_t>(i));
      g_ops.count_in_use();
      finish(op);
    } else {
      ++i;
    }
  }
}

int issue(std::unique_ptr<Operation> op, MPI_Request *request) {
  if (op->kind() == Operation::Kind::persistent) {
    if (auto *po = dynamic_cast<PlanOperation *>(op.get()))
      po->fixed_tag = op->context().next_persistent_tag(kPersistentTagBase, kPersistentTags);
    MPI_Request token = MPI_REQUEST_NULL;
    if (const int rc = PMPI_Send_init(nullptr, 0, MPI_BYTE, MPI_PROC_NULL, 0, MPI_COMM_SELF, &token);
        rc != MPI_SUCCESS)
      return rc;
    op->handle = token;
    g_ops.persistent.emplace(token, std::move(op));
    g_ops.count_in_use();
    *request = token;
    return MPI_SUCCESS;
  }
  progress();
  Operation *raw = op.release();
  if (const int rc = PMPI_Grequest_start(query_fn, free_fn, cancel_fn, raw, &raw->handle);
      rc != MPI_SUCCESS) {
    delete raw;
    return rc;
  }
  raw->open_record();
  if (const int rc = raw->begin(); rc != MPI_SUCCESS) {
    raw->record.close();
    MPI_Request h = raw->handle;
    raw->engine_done_ = true;
    PMPI_Grequest_complete(h);
    PMPI_Request_free(&h);  // free_fn deletes raw
    return rc;
  }
  raw->active_ = true;
  *request = raw->handle;  // (before a completion that may free it: the program holds it)
  if (raw->advance()) {
    finish(raw);
  } else {
    g_ops.active.push_back(raw);
    g_ops.count_in_use();
    progress_thread_wake();
  }
  return MPI_SUCCESS;
}

int PlanOperation::begin() {
  if (stage) {
    if (const int rc = stage(scratch.data(), &bufs); rc != MPI_SUCCESS) return rc;
  }
  // (nonblocking only: the shared-memory algorithms do not serve persistent calls, whose starts
  // may come in a different order on each rank)
  if (plan && uses_node(*plan)) bufs.node = context().next_node_channel(false, *plan);
  cursor_.reset(plan.get(), bufs, reducer ? &*reducer : nullptr, comm,
                fixed_tag != 0 ? fixed_tag : next_nonblocking_tag(context()), &req_);
  return MPI_SUCCESS;
}

bool PlanOperation::advance() {
  std::vector<double> *phases = record.phase_seconds();
  const double t0 = phases != nullptr && trace::waiting() ? MPI_Wtime() : 0.0;
  const bool done = cursor_.advance(phases);
  if (t0 != 0.0) record.advanced_in_wait(MPI_Wtime() - t0);
  if (!done) return false;
  err_ = cursor_.error();
  if (err_ == MPI_SUCCESS && unstage) err_ = unstage(scratch.data());
  return true;
}

VendorOperation::~VendorOperation() {
  if (own_comm != MPI_COMM_NULL) PMPI_Comm_free(&own_comm);
}

int VendorOperation::begin() {
  inner_ = MPI_REQUEST_NULL;
  waited_err_ = MPI_SUCCESS;
  return start(scratch.data(), &inner_);
}

bool VendorOperation::advance() {
  int flag = 0;
  const int rc = PMPI_Test(&inner_, &flag, MPI_STATUS_IGNORE);
  if (rc == MPI_SUCCESS && !flag) return false;
  err_ = rc != MPI_SUCCESS ? rc : waited_err_;
  if (err_ == MPI_SUCCESS && unstage) err_ = unstage(scratch.data());
  return true;
}

}  // namespace pcoll

extern "C" {

int PCOLL_Op_free(MPI_Op *op) {
  const pcoll::EngineLock lock;
  return pcoll::free_op(op);
}

}  // extern "C"
