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

// Started and not complete, in the order they were started (progress goes through them in it).
std::vector<Operation *> g_active;
// Persistent operations by their token.
std::unordered_map<MPI_Request, std::unique_ptr<Operation>> g_persistent;
// Nonblocking operations that MPI freed (free_fn) after the engine was done with them: deleted at
// the next entry into pcoll, not inside the vendor's completion call that ran free_fn (their
// destructor frees datatypes and may free a context's communicator).
std::vector<Operation *> g_released;
// User ops held by outstanding operations (HeldHandles), and whether the program freed them.
struct HeldOp {
  int holds = 0;
  bool free_pending = false;
};
std::unordered_map<MPI_Op, HeldOp> g_held_ops;
// g_active.size() + g_persistent.size(), kept beside them (under the engine lock) for
// requests_in_use(), which libpcoll_mpi.so's completion calls read before they take the lock.
std::atomic<std::size_t> g_in_use{0};
void count_in_use() {
  g_in_use.store(g_active.size() + g_persistent.size(), std::memory_order_release);
}

// MPI's empty status with an error field: what a completed collective reports.
void empty_status(MPI_Status *st, int err) {
  if (st == MPI_STATUS_IGNORE) return;
  st->MPI_SOURCE = MPI_ANY_SOURCE;
  st->MPI_TAG = MPI_ANY_TAG;
  st->MPI_ERROR = err;
  PMPI_Status_set_elements(st, MPI_BYTE, 0);
  PMPI_Status_set_cancelled(st, 0);
}

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
  if (op->engine_done_) g_released.push_back(op);
  return MPI_SUCCESS;
}

void delete_released() {
  while (!g_released.empty()) {
    Operation *op = g_released.back();
    g_released.pop_back();
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
  PMPI_Grequest_complete(h);  // (may call free_fn, which then hands op to g_released)
  if (freed) delete op;
}

Operation *persistent_of(MPI_Request r) {
  if (g_persistent.empty() || r == MPI_REQUEST_NULL) return nullptr;
  const auto it = g_persistent.find(r);
  return it == g_persistent.end() ? nullptr : it->second.get();
}

// A persistent operation's completion by a wait or test: its status and error, then inactive.
int complete_persistent(Operation *op, MPI_Status *st) {
  const int e = op->mpi_active_ ? op->err_ : MPI_SUCCESS;
  op->mpi_active_ = false;
  op->err_ = MPI_SUCCESS;
  empty_status(st, e);
  return e;
}

int call_errhandler(MPI_Comm comm, int code) {
  if (code != MPI_SUCCESS && comm != MPI_COMM_NULL) MPI_Comm_call_errhandler(comm, code);
  return code;
}
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
    g_active.push_back(op);
    count_in_use();
    progress_thread_wake();
  }
  return MPI_SUCCESS;
}

// The requests of an array that are not persistent pcoll tokens, for the vendor's calls.
struct Split {
  std::vector<MPI_Request> rest;
  std::vector<int> where;  // rest[k] is array[where[k]]
  std::vector<int> mine;   // indices of pcoll tokens
  void make(int n, const MPI_Request *reqs) {
    for (int i = 0; i < n; ++i) {
      if (persistent_of(reqs[i]) != nullptr) {
        mine.push_back(i);
      } else {
        rest.push_back(reqs[i]);
        where.push_back(i);
      }
    }
  }
  void write_back(MPI_Request *reqs) const {
    for (std::size_t k = 0; k < rest.size(); ++k) reqs[where[k]] = rest[k];
  }
};

bool any_mine(int n, const MPI_Request *reqs) {
  if (g_persistent.empty()) return false;
  for (int i = 0; i < n; ++i)
    if (persistent_of(reqs[i]) != nullptr) return true;
  return false;
}

MPI_Status *status_at(MPI_Status *sts, int i) {
  return sts == MPI_STATUSES_IGNORE ? MPI_STATUS_IGNORE : sts + i;
}

// Waitall/Testall over an array holding pcoll tokens: the tokens' operations complete first
// (Waitall) or must all be complete (Testall) before the vendor sees the rest, because MPI's
// Testall changes nothing unless every request is complete.
int all_with_tokens(int n, MPI_Request *reqs, int *flag, MPI_Status *sts, bool block) {
  Split s;
  s.make(n, reqs);
  for (;;) {
    progress();
    bool done = true;
    for (int i : s.mine)
      if (persistent_of(reqs[i])->active_) done = false;
    if (done) break;
    if (!block) {
      *flag = 0;
      return MPI_SUCCESS;
    }
  }
  std::vector<MPI_Status> rest_st(s.rest.size());
  int rc = MPI_SUCCESS, f = 1;
  const int nr = static_cast<int>(s.rest.size());
  if (nr > 0) {
    for (;;) {
      rc = PMPI_Testall(nr, s.rest.data(), &f, rest_st.data());
      if (rc != MPI_SUCCESS || f || !block) break;
      progress();
    }
  }
  if (!f) {
    *flag = 0;
    return rc;
  }
  s.write_back(reqs);
  bool failed = rc != MPI_SUCCESS;
  if (sts != MPI_STATUSES_IGNORE)
    for (std::size_t k = 0; k < s.rest.size(); ++k) sts[s.where[k]] = rest_st[k];
  for (int i : s.mine) {
    if (complete_persistent(persistent_of(reqs[i]), status_at(sts, i)) != MPI_SUCCESS)
      failed = true;
  }
  *flag = 1;
  return failed ? MPI_ERR_IN_STATUS : MPI_SUCCESS;
}

// Waitany/Testany over an array holding pcoll tokens.
int any_with_tokens(int n, MPI_Request *reqs, int *index, int *flag, MPI_Status *st, bool block) {
  Split s;
  s.make(n, reqs);
  for (;;) {
    progress();
    bool some_active = false;
    for (int i : s.mine) {
      Operation *op = persistent_of(reqs[i]);
      if (!op->mpi_active_) continue;
      some_active = true;
      if (!op->active_) {
        *index = i;
        *flag = 1;
        return complete_persistent(op, st);
      }
    }
    int k = MPI_UNDEFINED, f = 0;
    const int rc = s.rest.empty() ? (f = 1, MPI_SUCCESS)
                                  : PMPI_Testany(static_cast<int>(s.rest.size()), s.rest.data(),
                                                 &k, &f, st);
    s.write_back(reqs);
    if (rc != MPI_SUCCESS || (f && k != MPI_UNDEFINED)) {
      *index = k == MPI_UNDEFINED ? MPI_UNDEFINED : s.where[static_cast<std::size_t>(k)];
      *flag = 1;
      return rc;
    }
    if (f && !some_active) {  // nothing active at all
      *index = MPI_UNDEFINED;
      *flag = 1;
      empty_status(st, MPI_SUCCESS);
      return MPI_SUCCESS;
    }
    if (!block) {
      *index = MPI_UNDEFINED;
      *flag = 0;
      return MPI_SUCCESS;
    }
  }
}

// Waitsome/Testsome over an array holding pcoll tokens.
int some_with_tokens(int n, MPI_Request *reqs, int *outcount, int *indices, MPI_Status *sts,
                     bool block) {
  Split s;
  s.make(n, reqs);
  std::vector<int> k(s.rest.size());
  std::vector<MPI_Status> rest_st(s.rest.size());
  for (;;) {
    progress();
    int out = 0;
    bool some_active = false, failed = false;
    for (int i : s.mine) {
      Operation *op = persistent_of(reqs[i]);
      if (!op->mpi_active_) continue;
      some_active = true;
      if (op->active_) continue;
      indices[out] = i;
      if (complete_persistent(op, status_at(sts, out)) != MPI_SUCCESS) failed = true;
      ++out;
    }
    int m = 0;
    int rc = MPI_SUCCESS;
    if (!s.rest.empty()) {
      rc = PMPI_Testsome(static_cast<int>(s.rest.size()), s.rest.data(), &m, k.data(),
                         rest_st.data());
      s.write_back(reqs);
    } else {
      m = MPI_UNDEFINED;
    }
    if (m != MPI_UNDEFINED) {
      for (int j = 0; j < m; ++j) {
        indices[out] = s.where[static_cast<std::size_t>(k[static_cast<std::size_t>(j)])];
        if (sts != MPI_STATUSES_IGNORE) sts[out] = rest_st[static_cast<std::size_t>(j)];
        ++out;
      }
    }
    if (m == MPI_UNDEFINED && !some_active) {
      *outcount = MPI_UNDEFINED;
      return MPI_SUCCESS;
    }
    if (out > 0 || rc != MPI_SUCCESS || !block) {
      *outcount = out;
      if (rc != MPI_SUCCESS || failed) return MPI_ERR_IN_STATUS;
      return MPI_SUCCESS;
    }
  }
}

}  // namespace

namespace {

// Blocks until a transfer of an outstanding operation completes: one PMPI_Waitsome over all of
// their pending requests, instead of a loop of tests (one library call per completion, and the
// MPI library may wait as it likes). False when none is pending (the caller then polls). Only
// for a caller that waits for pcoll operations alone: a user's request completing meanwhile
// would not end the wait.
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
  for (Operation *op : g_active) {
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
         std::any_of(g_active.begin(), g_active.end(),
                     [r](const Operation *op) { return op->handle == r; });
}

// Whether every request of the array is pcoll's: a persistent token, or the handle of an
// outstanding nonblocking operation (null requests do not count). Then a wait for them may
// block on the operations' transfers (block_once).
bool only_pcoll(int n, const MPI_Request *reqs) {
  bool any = false;
  for (int i = 0; i < n; ++i) {
    if (reqs[i] == MPI_REQUEST_NULL) continue;
    if (persistent_of(reqs[i]) == nullptr && !outstanding_handle(reqs[i])) return false;
    any = true;
  }
  return any;
}

// Waits, blocking on the operations' transfers, until none of the n requests (all pcoll's) is
// active in the engine; the caller then completes them as usual (at once).
void wait_engine(int n, const MPI_Request *reqs) {
  auto active = [&] {
    for (int i = 0; i < n; ++i) {
      if (reqs[i] == MPI_REQUEST_NULL) continue;
      if (Operation *op = persistent_of(reqs[i])) {
        if (op->active_) return true;
      } else if (outstanding_handle(reqs[i])) {
        return true;
      }
    }
    return false;
  };
  for (;;) {
    progress();
    if (!active()) return;
    block_once();
  }
}

}  // namespace

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
  ++g_held_ops[o].holds;
}

HeldHandles::~HeldHandles() {
  for (auto &p : types_) PMPI_Type_free(&p.second);
  if (op_ == MPI_OP_NULL) return;
  const auto it = g_held_ops.find(op_);
  if (it == g_held_ops.end() || --it->second.holds > 0) return;
  if (it->second.free_pending) PMPI_Op_free(&op_);
  g_held_ops.erase(it);
}

int free_op(MPI_Op *op) {
  if (op != nullptr && *op != MPI_OP_NULL) {
    const auto it = g_held_ops.find(*op);
    if (it != g_held_ops.end()) {
      it->second.free_pending = true;
      *op = MPI_OP_NULL;
      return MPI_SUCCESS;
    }
  }
  return PMPI_Op_free(op);
}

int next_nonblocking_tag(Context &ctx) {
  return ctx.next_nonblocking_tag(kNonblockingTags);
}

bool operations_outstanding() { return !g_active.empty(); }

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
    return std::any_of(g_active.begin(), g_active.end(),
                       [&ctx](const Operation *op) { return &op->context() == &ctx; });
  };
  while (on_comm()) progress();
}

bool requests_in_use() {
  return g_in_use.load(std::memory_order_acquire) != 0;
}

void progress() {
  if (!g_released.empty()) delete_released();
  if (g_active.empty()) return;
  for (std::size_t i = 0; i < g_active.size();) {
    Operation *op = g_active[i];
    if (op->advance()) {
      g_active.erase(g_active.begin() + static_cast<std::ptrdiff_t>(i));
      count_in_use();
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
    g_persistent.emplace(token, std::move(op));
    count_in_use();
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
    g_active.push_back(raw);
    count_in_use();
    progress_thread_wake();
  }
  return MPI_SUCCESS;
}

int PlanOperation::begin() {
  if (stage) {
    if (const int rc = stage(scratch.data(), &bufs); rc != MPI_SUCCESS) return rc;
  }
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

// --- the completion calls, with MPI's signatures ------------------------------------------------

using pcoll::g_active;
using pcoll::progress;

extern "C" {

int PCOLL_Wait(MPI_Request *request, MPI_Status *status) {
  const pcoll::EngineLock lock;  // (engine.hpp; taken before any state is read)
  const pcoll::trace::WaitClock waiting;  // the traced operations' "wait" phase
  if (pcoll::only_pcoll(1, request)) pcoll::wait_engine(1, request);
  if (pcoll::Operation *op = pcoll::persistent_of(*request))  // (inactive: wait_engine ran)
    return pcoll::op_error(op, pcoll::complete_persistent(op, status));
  while (!g_active.empty()) {
    progress();
    int flag = 0;
    const int rc = PMPI_Test(request, &flag, status);
    if (rc != MPI_SUCCESS || flag) return rc;
  }
  return PMPI_Wait(request, status);
}

int PCOLL_Test(MPI_Request *request, int *flag, MPI_Status *status) {
  const pcoll::EngineLock lock;  // (engine.hpp; taken before any state is read)
  progress();
  if (pcoll::Operation *op = pcoll::persistent_of(*request)) {
    *flag = !op->active_;
    if (!*flag) return MPI_SUCCESS;
    return pcoll::op_error(op, pcoll::complete_persistent(op, status));
  }
  return PMPI_Test(request, flag, status);
}

int PCOLL_Waitall(int count, MPI_Request requests[], MPI_Status statuses[]) {
  const pcoll::EngineLock lock;  // (engine.hpp; taken before any state is read)
  const pcoll::trace::WaitClock waiting;  // the traced operations' "wait" phase
  if (pcoll::only_pcoll(count, requests)) pcoll::wait_engine(count, requests);
  if (pcoll::any_mine(count, requests)) {
    int flag = 0;
    return pcoll::all_with_tokens(count, requests, &flag, statuses, true);
  }
  while (!g_active.empty()) {
    progress();
    int flag = 0;
    const int rc = PMPI_Testall(count, requests, &flag, statuses);
    if (rc != MPI_SUCCESS || flag) return rc;
  }
  return PMPI_Waitall(count, requests, statuses);
}

int PCOLL_Testall(int count, MPI_Request requests[], int *flag, MPI_Status statuses[]) {
  const pcoll::EngineLock lock;  // (engine.hpp; taken before any state is read)
  if (pcoll::any_mine(count, requests))
    return pcoll::all_with_tokens(count, requests, flag, statuses, false);
  progress();
  return PMPI_Testall(count, requests, flag, statuses);
}

int PCOLL_Waitany(int count, MPI_Request requests[], int *index, MPI_Status *status) {
  const pcoll::EngineLock lock;  // (engine.hpp; taken before any state is read)
  const pcoll::trace::WaitClock waiting;  // the traced operations' "wait" phase
  if (pcoll::any_mine(count, requests)) {
    int flag = 0;
    return pcoll::any_with_tokens(count, requests, index, &flag, status, true);
  }
  while (!g_active.empty()) {
    progress();
    int flag = 0;
    const int rc = PMPI_Testany(count, requests, index, &flag, status);
    if (rc != MPI_SUCCESS || flag) return rc;
  }
  return PMPI_Waitany(count, requests, index, status);
}

int PCOLL_Testany(int count, MPI_Request requests[], int *index, int *flag, MPI_Status *status) {
  const pcoll::EngineLock lock;  // (engine.hpp; taken before any state is read)
  if (pcoll::any_mine(count, requests))
    return pcoll::any_with_tokens(count, requests, index, flag, status, false);
  progress();
  return PMPI_Testany(count, requests, index, flag, status);
}

int PCOLL_Waitsome(int incount, MPI_Request requests[], int *outcount, int indices[],
                   MPI_Status statuses[]) {
  const pcoll::EngineLock lock;  // (engine.hpp; taken before any state is read)
  const pcoll::trace::WaitClock waiting;
  if (pcoll::any_mine(incount, requests))
    return pcoll::some_with_tokens(incount, requests, outcount, indices, statuses, true);
  while (!g_active.empty()) {
    progress();
    const int rc = PMPI_Testsome(incount, requests, outcount, indices, statuses);
    if (rc != MPI_SUCCESS || *outcount != 0) return rc;
  }
  return PMPI_Waitsome(incount, requests, outcount, indices, statuses);
}

int PCOLL_Testsome(int incount, MPI_Request requests[], int *outcount, int indices[],
                   MPI_Status statuses[]) {
  const pcoll::EngineLock lock;  // (engine.hpp; taken before any state is read)
  if (pcoll::any_mine(incount, requests))
    return pcoll::some_with_tokens(incount, requests, outcount, indices, statuses, false);
  progress();
  return PMPI_Testsome(incount, requests, outcount, indices, statuses);
}

int PCOLL_Request_get_status(MPI_Request request, int *flag, MPI_Status *status) {
  const pcoll::EngineLock lock;  // (engine.hpp; taken before any state is read)
  progress();
  if (pcoll::Operation *op = pcoll::persistent_of(request)) {
    *flag = !op->active_;
    if (*flag) pcoll::empty_status(status, op->mpi_active_ ? op->err_ : MPI_SUCCESS);
    return MPI_SUCCESS;
  }
  return PMPI_Request_get_status(request, flag, status);
}

int PCOLL_Start(MPI_Request *request) {
  const pcoll::EngineLock lock;  // (engine.hpp; taken before any state is read)
  return pcoll::start_one(request);
}

int PCOLL_Startall(int count, MPI_Request requests[]) {
  const pcoll::EngineLock lock;  // (engine.hpp; taken before any state is read)
  for (int i = 0; i < count; ++i)
    if (const int rc = pcoll::start_one(&requests[i]); rc != MPI_SUCCESS) return rc;
  return MPI_SUCCESS;
}

int PCOLL_Op_free(MPI_Op *op) {
  const pcoll::EngineLock lock;
  return pcoll::free_op(op);
}

int PCOLL_Request_free(MPI_Request *request) {
  const pcoll::EngineLock lock;  // (engine.hpp; taken before any state is read)
  if (pcoll::Operation *op = pcoll::persistent_of(*request)) {
    if (op->mpi_active_) {
      pcoll::report("MPI_Request_free: the persistent collective request is active (MPI: erroneous)");
      return pcoll::op_error(op, MPI_ERR_REQUEST);
    }
    MPI_Request token = *request;
    pcoll::g_persistent.erase(token);
    pcoll::count_in_use();
    *request = MPI_REQUEST_NULL;
    return PMPI_Request_free(&token);
  }
  return PMPI_Request_free(request);
}

}  // extern "C"
