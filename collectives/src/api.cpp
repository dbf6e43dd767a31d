// The C API: each PCOLL_ entry point (generated from collectives.def) checks its arguments and
// runs its call (Call, call.hpp) along one path: resolve() (context, signature, decision) ->
// the action chosen once (nothing, the vendor direct or in units, or a plan), staged by
// staging.hpp -> the trace's record of it (CallTrace).
#include <pcoll/pcoll.h>

#include <algorithm>
#include <climits>
#include <cstring>
#include <exception>
#include <memory>
#include <new>
#include <numeric>
#include <optional>
#include <set>
#include <sstream>
#include <string>

#include "binned.hpp"
#include "call.hpp"
#include "config.hpp"
#include "context.hpp"
#include "datatype.hpp"
#include "engine.hpp"
#include "executor.hpp"
#include "reduce.hpp"
#include "registry.hpp"
#include "request.hpp"
#include "select.hpp"
#include "staging.hpp"
#include "trace/recorder.hpp"

using namespace pcoll;

namespace {

// No C++ exception crosses the C API: every PCOLL_ entry runs its body through guarded(), which
// maps std::bad_alloc to MPI_ERR_NO_MEM and anything else to MPI_ERR_INTERN, then calls the
// communicator's error handler like every other error.
template <class Body>
int guarded(MPI_Comm comm, Body body) noexcept {
  try {
    const EngineLock lock;  // (engine.hpp: only with PCOLL_PROGRESS=thread)
    return body();
  } catch (const std::bad_alloc &) {
    return fail_call(comm, MPI_ERR_NO_MEM, "out of memory");
  } catch (const std::exception &e) {
    return fail_call(comm, MPI_ERR_INTERN, std::string("internal error: ") + e.what());
  } catch (...) {
    return fail_call(comm, MPI_ERR_INTERN, "internal error (unknown exception)");
  }
}

// True the first time this process meets `msg`: warnings are said once per process and reason
// (by speaker() below), not per communicator, so a program (or a preloaded libpcoll_mpi.so under
// one) that creates many communicators does not repeat them. Calls are serialised (pcoll is not
// thread-safe).
bool first_in_process(const std::string &msg) {
  static std::set<std::string> said;
  return said.insert(msg).second;
}

// Whether this rank says a warning about a call on ctx's communicator: rank 0 of MPI_COMM_WORLD
// when the communicator contains it (so a run says each reason once, on rank 0), else the
// communicator's rank 0 (nobody else would); of an inter-communicator's two groups, only the
// one holding rank 0 of MPI_COMM_WORLD, if either does. Evaluated only on a warning's first
// occurrence.
bool speaker(const Context &ctx) {
  MPI_Group world = MPI_GROUP_NULL, group = MPI_GROUP_NULL, remote = MPI_GROUP_NULL;
  PMPI_Comm_group(MPI_COMM_WORLD, &world);
  PMPI_Comm_group(ctx.comm(), &group);
  int zero = 0, there = MPI_UNDEFINED, over_there = MPI_UNDEFINED;
  PMPI_Group_translate_ranks(world, 1, &zero, group, &there);
  if (ctx.intercomm()) {
    PMPI_Comm_remote_group(ctx.comm(), &remote);
    PMPI_Group_translate_ranks(world, 1, &zero, remote, &over_there);
    PMPI_Group_free(&remote);
  }
  PMPI_Group_free(&world);
  PMPI_Group_free(&group);
  if (there == MPI_UNDEFINED && over_there != MPI_UNDEFINED) return false;
  return ctx.rank() == (there == MPI_UNDEFINED ? 0 : there);
}

// A null buffer with a non-zero count is an error, except MPI_BOTTOM (a null pointer in Open MPI
// and MPICH) with a datatype of absolute addresses, whose data does not start at displacement 0.
bool null_data(const void *buf, long long count, MPI_Datatype dt) {
  return buf == nullptr && count > 0 && (dt == MPI_DATATYPE_NULL || describe_type(dt).packed_order);
}
// Send and receive buffers that are the same memory (MPI_BOTTOM for both is not: the datatypes
// say where the data is).
bool aliased(const void *sendbuf, const void *recvbuf) {
  return sendbuf == recvbuf && sendbuf != MPI_BOTTOM;
}

// Argument checks common to the collectives (MPI's error classes).
int check_args(MPI_Comm comm, int count, MPI_Datatype dt, MPI_Op op, bool has_op) {
  if (comm == MPI_COMM_NULL) return fail_call(MPI_COMM_NULL, MPI_ERR_COMM, "MPI_COMM_NULL");
  if (count < 0) return fail_call(comm, MPI_ERR_COUNT, "negative count");
  if (dt == MPI_DATATYPE_NULL) return fail_call(comm, MPI_ERR_TYPE, "MPI_DATATYPE_NULL");
  if (has_op && op == MPI_OP_NULL) return fail_call(comm, MPI_ERR_OP, "MPI_OP_NULL");
  return MPI_SUCCESS;
}

// How a call runs: blocking, or handed to the program as a request (nonblocking: started now;
// persistent: started by PCOLL_Start, as often as the program likes).
// The handles a vendor call takes: the user's for a call made now; for an operation that calls
// the vendor at a later start (persistent), its own (HeldHandles) and its own communicator.
struct VendorHandles {
  MPI_Comm comm;
  MPI_Datatype sendtype, recvtype;
  MPI_Op op;
};

struct Async {
  MPI_Request *request = nullptr;  // null: a blocking call
  Operation::Kind kind = Operation::Kind::nonblocking;
  bool blocking() const { return request == nullptr; }
};

// The op the signature's units are reduced with: the user's, or the reproducible mode's binned op.
MPI_Op unit_op(const Signature &sig, MPI_Op user) {
  return sig.binned.on() ? binned::mpi_op() : user;
}

// What a nonblocking or persistent operation keeps of its call (the caller's arrays and
// signature die when the PCOLL_ call returns; the user's buffers and count arrays stay valid
// until completion, as MPI requires).
struct KeptCall {
  Call c;
  VectorArgs vec;  // the call's per-peer arrays (pointers to the user's, which stay valid)
  Signature sig;
  VectorLayout vl;
  std::optional<PlanStaging> plan_staging;
  std::optional<UnitsStaging> units_staging;
  KeptCall(const Call &call, const Signature &s) : c(call), sig(s) {
    if (call.vec != nullptr) {
      vec = *call.vec;
      if (vec.gather) {
        vec.sendcounts = &vec.one_count;
        vec.sdispls = &vec.one_displ;
      }
      c.vec = &vec;
    }
  }
  // Swaps the program's datatypes for the operation's own and holds its op (HeldHandles): the
  // program may free them before the operation completes. (A send type passed with MPI_IN_PLACE
  // is not significant and is left alone.)
  void hold(HeldHandles &h) {
    if (!c.in_place()) {
      sig.send.dt = h.type(sig.send.dt);
      c.sendtype = h.type(c.sendtype);
    }
    sig.recv.dt = h.type(sig.recv.dt);
    sig.unit_type = h.type(sig.unit_type);
    c.recvtype = h.type(c.recvtype);
    h.op(c.op);
  }
};

// The handles of a vendor call made at an operation's start: its own datatypes and op, on its
// own communicator (a persistent one's, made here at init) or the context's.
int vendor_handles(const Call &c, VendorOperation &op, Context &ctx, VendorHandles *h) {
  *h = VendorHandles{ctx.comm(), c.in_place() ? c.sendtype : op.held.type(c.sendtype),
                     op.held.type(c.recvtype), c.op};
  op.held.op(c.op);
  if (op.kind() == Operation::Kind::persistent) {
    if (const int rc = PMPI_Comm_dup(ctx.comm(), &op.own_comm); rc != MPI_SUCCESS) return rc;
    PMPI_Comm_set_errhandler(op.own_comm, MPI_ERRORS_RETURN);
    h->comm = op.own_comm;
  }
  return MPI_SUCCESS;
}

// ---- One call's path: resolve() -> the action, chosen once -> that action in the call's mode ----
//
// resolve(): the context, the signature (the call's shape in units every rank shares) and the
// decision, from the context's memo or made now. action_of(): what runs it: nothing (an empty
// signature), the vendor with the user's arguments (VendorDirect), the vendor in the signature's
// units (VendorInUnits), or the decision's plan on the packed buffers (PlanRun). Each action
// stages, runs and unstages; blocking, it does so now, inside this call; nonblocking or
// persistent, it hands the same three steps to an operation of the engine (request.hpp) and
// returns its request. CallTrace says what the trace records, for every action alike.

// What resolve() finds. `sig` points at the memo's signature or at `fresh`: a Resolved is not
// copied or moved.
struct Resolved {
  Context &ctx;
  const Signature *sig = nullptr;
  const Decision *d = nullptr;
  Signature fresh;
  explicit Resolved(Context &c) : ctx(c) {}
  Resolved(const Resolved &) = delete;
  Resolved &operator=(const Resolved &) = delete;
};

// The signature and decision of call `c` on r.ctx. A loop repeating its last call finds both in
// the memo (which only ever holds calls on predefined datatypes and ops, so a hit needs no
// datatype inspection). Deciding is collective where MPI lets the call wait for the others
// (blocking calls; Context::decide_collectively).
// Returns an MPI error code (the error handler already called) or MPI_SUCCESS.
int resolve(const Call &c, const Async &async, Resolved &r) {
  Context &ctx = r.ctx;
  if (ctx.config_error() != MPI_SUCCESS) return fail_call(c.comm, ctx.config_error());
  const Context::MemoKey key{c.coll,
                             c.count,
                             c.in_place() ? -1 : c.sendcount,
                             c.recvtype,
                             c.in_place() ? MPI_DATATYPE_NULL : c.sendtype,
                             c.op,
                             c.root,
                             async.kind == Operation::Kind::persistent && !async.blocking()};
  const int *memo_counts = c.vec != nullptr ? c.vec->recvcounts : c.block_counts;
  const int memo_n = c.vec != nullptr ? c.vec->peers : c.block_counts != nullptr ? ctx.size() : 0;
  // The memo holds only memoizable calls, and its key holds the collective (so the kind of its
  // counts) and every handle: a hit is memoizable, and only a miss asks (two datatype lookups
  // and an op test that every small call paid before).
  r.d = ctx.memo_find(key, &r.sig, memo_counts, memo_n);
  if (r.d == nullptr) {
    if (int rc = signature_of(ctx, c, r.fresh); rc != MPI_SUCCESS) return rc;
    r.fresh.shape.persistent = key.persistent;
    // Blocking or not is the same on every rank at this call; what each rank has outstanding
    // is not (so it may not choose the mode).
    r.d = async.blocking() ? &ctx.decide_collectively(r.fresh.shape)
                           : &ctx.decide_locally(r.fresh.shape);
    r.sig = &r.fresh;
    if (c.memoizable()) ctx.memo_store(key, r.fresh, r.d, memo_counts, memo_n);
  }
  const Decision &d = *r.d;
  if (d.error != MPI_SUCCESS) return fail_call(c.comm, d.error, d.error_message);
  for (const std::string &w : d.warnings)
    if (first_in_process(w) && speaker(ctx)) report(w);
  if (r.sig->binned_note != nullptr && first_in_process(r.sig->binned_note) && speaker(ctx))
    report(r.sig->binned_note);
  ctx.last_algorithm = d.algo->name;
  return MPI_SUCCESS;
}

enum class Action { moves_nothing, vendor_direct, vendor_in_units, plan_run };

// A data-movement call whose signature is empty moves nothing, and every rank knows it: it
// returns at once (MPI does not make collectives synchronise; alltoallv and barrier count 1,
// allgatherv counts its mean block), or with a request that is complete. Not calling the vendor
// also avoids Open MPI 4.1's bcast hanging when the root passes 1 x a zero-size datatype and the
// others 0 x MPI_INT (one signature, legal MPI).
Action action_of(const Resolved &r) {
  const bool vendor = r.d->algo->is_vendor();
  if (r.sig->shape.count == 0 && (!r.sig->shape.reduction || !vendor)) return Action::moves_nothing;
  if (!vendor) return Action::plan_run;
  return r.sig->vendor_in_units ? Action::vendor_in_units : Action::vendor_direct;
}

// What the trace records of a call: a blocking call is recorded by its CallScope (described
// here at once); a nonblocking or persistent one by its operation, from its start to its
// completion (trace::OpRecord), so the call itself is not. The reproducible mode is named with
// the algorithm ("ring reproducible=on"); the pack and unpack phases of a blocking call are
// added after the plan's.
class CallTrace {
 public:
  CallTrace(trace::CallScope &scope, const Call &c, const Resolved &r, const Async &async)
      : scope_(scope),
        c_(c),
        r_(r),
        async_(async),
        pack_(scope.phase_seconds() != nullptr),
        unpack_(scope.phase_seconds() != nullptr) {
    if (!scope_.on()) return;
    if (r.sig->binned.on()) label_ = std::string(r.d->label()) + " reproducible=on";
    if (async.blocking())
      scope_.describe(r.ctx.comm(), collective_name(c.coll), label(), count(), r.sig->type_size);
  }
  trace::CallScope &scope() { return scope_; }
  PhaseTimer &pack() { return pack_; }
  PhaseTimer &unpack() { return unpack_; }
  // A blocking call's packing, after the plan's phases.
  void add_pack_phases() {
    if (pack_.used || unpack_.used) {
      scope_.add_phase("pack", pack_.seconds);
      scope_.add_phase("unpack", unpack_.seconds);
    }
  }
  // Hands a nonblocking or persistent operation to the engine, described for its record.
  int issue_described(std::unique_ptr<Operation> op) {
    if (scope_.on()) {
      op->describe(r_.ctx.comm(),
                   async_.kind == Operation::Kind::persistent
                       ? std::string(collective_name(c_.coll)) + "_init"
                       : std::string("i") + collective_name(c_.coll),
                   label(), count(), r_.sig->type_size);
      op->described.params = r_.d->params;
      if (const auto *po = dynamic_cast<const PlanOperation *>(op.get()); po && po->plan)
        op->described.phases = po->plan->phases;
    }
    const int rc = issue(std::move(op), async_.request);
    return rc == MPI_SUCCESS ? rc : fail_call(c_.comm, rc);
  }

 private:
  const char *label() const { return label_.empty() ? r_.d->label() : label_.c_str(); }
  std::size_t count() const {
    return c_.vec ? std::accumulate(c_.vec->recvcounts, c_.vec->recvcounts + c_.vec->peers,
                                    std::size_t(0))
                  : static_cast<std::size_t>(c_.count);
  }
  trace::CallScope &scope_;
  const Call &c_;
  const Resolved &r_;
  const Async &async_;
  std::string label_;
  PhaseTimer pack_, unpack_;
};

// Action::moves_nothing: success at once, or a request that completes at its first test.
int run_moves_nothing(const Call &c, Resolved &r, const Async &async, CallTrace &t) {
  if (async.blocking()) return MPI_SUCCESS;
  auto op = std::make_unique<PlanOperation>(async.kind, c.comm, &r.ctx);
  op->comm = r.ctx.comm();
  return t.issue_described(std::move(op));
}

// Action::vendor_direct: `vendor(handles, request)` with the user's arguments.
// Blocking: the user's handles, the vendor called now. Nonblocking and persistent: the vendor's
// nonblocking call (at each start), on the context's communicator (a persistent operation's own),
// inside an operation of pcoll's whose request completes when the vendor's does. Not the vendor's
// call on the program's communicator: that one may be freed with the call outstanding (legal
// MPI), which Open MPI 4.1's libnbc does not survive (its next round sends on the freed
// communicator), while the context's lives until the operation is released.
template <class Vendor>
int run_vendor_direct(const Call &c, Resolved &r, Vendor vendor, const Async &async, CallTrace &t) {
  if (async.blocking()) {
    if (operations_outstanding()) complete_outstanding_on(r.ctx);
    const EngineUnlocked unlocked;  // the progress thread runs while the vendor waits
    const int rc = vendor(VendorHandles{c.comm, c.sendtype, c.recvtype, c.op}, nullptr);
    return rc == MPI_SUCCESS ? rc : fail_call(c.comm, rc);
  }
  auto op = std::make_unique<VendorOperation>(async.kind, c.comm, &r.ctx);
  VendorHandles own{};
  if (const int rc = vendor_handles(c, *op, r.ctx, &own); rc != MPI_SUCCESS)
    return fail_call(c.comm, rc);
  op->start = [vendor, own](char *, MPI_Request *inner) -> int { return vendor(own, inner); };
  return t.issue_described(std::move(op));
}

// The input lives in the receive buffer (in place) and is read from it on this rank.
bool input_in_recv(const Call &c, int rank) {
  return c.in_place() && (!collective_info(c.coll).takes_root || rank == c.root);
}

// Action::vendor_in_units: `vendor_in_units(handles, in, out, count, type, op, request)` on
// each side staged as an array of base values (UnitsStaging), with the op the units are reduced
// with (the user's, or the reproducible mode's binned op); reduce_scatter's vendor call scales
// its recvcounts by the units per element, which it gets as the count.
template <class VendorInUnits>
int run_vendor_in_units(const Call &c, Resolved &r, VendorInUnits vendor_in_units,
                        const Async &async, CallTrace &t) {
  const Signature &sig = *r.sig;
  const bool in_recv = input_in_recv(c, r.ctx.rank());
  const auto units_count = [](const UnitsStaging &u) {
    return static_cast<int>(u.c.block_counts ? u.sig.units_per_elem : u.sig.shape.count);
  };
  if (async.blocking()) {
    if (operations_outstanding()) complete_outstanding_on(r.ctx);
    const UnitsStaging st(c, sig, in_recv, r.ctx.comm());
    char *scratch = static_cast<char *>(
        r.ctx.scratch(st.scratch_bytes(), std::max(sig.send.bytes, sig.recv.bytes)));
    const void *in = nullptr;
    void *out = nullptr;
    int rc = st.stage(scratch, &in, &out, t.pack());
    if (rc != MPI_SUCCESS) return fail_call(c.comm, rc);
    {
      const EngineUnlocked unlocked;  // the progress thread runs while the vendor waits
      rc = vendor_in_units(VendorHandles{c.comm, c.sendtype, c.recvtype, c.op}, in, out,
                           units_count(st), sig.unit_type, unit_op(sig, c.op), nullptr);
    }
    if (rc == MPI_SUCCESS) rc = st.unstage(scratch, t.unpack());
    t.add_pack_phases();
    return rc == MPI_SUCCESS ? rc : fail_call(c.comm, rc);
  }
  auto kept = std::make_shared<KeptCall>(c, sig);
  auto op = std::make_unique<VendorOperation>(async.kind, c.comm, &r.ctx);
  VendorHandles own{};
  if (const int rc = vendor_handles(c, *op, r.ctx, &own); rc != MPI_SUCCESS)
    return fail_call(c.comm, rc);
  kept->hold(op->held);
  const UnitsStaging &st = kept->units_staging.emplace(kept->c, kept->sig, in_recv, r.ctx.comm());
  op->scratch.resize(st.scratch_bytes());
  op->start = [kept, vendor_in_units, own, units_count](char *scratch, MPI_Request *inner) -> int {
    PhaseTimer untimed(false);
    const void *in = nullptr;
    void *out = nullptr;
    const UnitsStaging &u = *kept->units_staging;
    if (const int rc = u.stage(scratch, &in, &out, untimed); rc != MPI_SUCCESS) return rc;
    return vendor_in_units(own, in, out, units_count(u), u.sig.unit_type, unit_op(u.sig, u.c.op),
                           inner);
  };
  op->unstage = [kept](char *scratch) -> int {
    PhaseTimer untimed(false);
    return kept->units_staging->unstage(scratch, untimed);
  };
  return t.issue_described(std::move(op));
}

// The plan a call runs: the decision's, or for a layout collective (alltoallv, allgatherv,
// reduce_scatter) the plan of this call's layout, from the decision's cache or built now
// (`vl`: the vector collectives' packed layout, filled here).
std::shared_ptr<const Plan> plan_for(const Call &c, const Resolved &r, VectorLayout &vl) {
  const Decision &d = *r.d;
  auto of_layout = [&](const Layout &l) {
    std::shared_ptr<const Plan> p = d.layout_plans->find(l);
    if (!p) {
      PlanRequest req = d.req;
      req.layout = &l;
      p = std::make_shared<const Plan>(make_plan(*d.algo, req));
      d.layout_plans->store(l, p);
    }
    return p;
  };
  if (c.vec != nullptr) {
    vl = vector_layout(c);
    return of_layout(vl.bytes);
  }
  if (c.block_counts != nullptr) {
    // reduce_scatter: every rank's block in units, the input packed in rank order.
    Layout units;
    units.recvcounts.resize(static_cast<std::size_t>(r.ctx.size()));
    for (int q = 0; q < r.ctx.size(); ++q)
      units.recvcounts[static_cast<std::size_t>(q)] =
          static_cast<std::size_t>(c.block_counts[q]) * r.sig->units_per_elem;
    return of_layout(units);
  }
  return d.plan;
}

// Action::plan_run: the plan run by the executor on the packed form of the buffers (PlanStaging).
// Blocking: now, with the executor (or, while operations are outstanding, with the executor
// progressing them too: request.hpp). Nonblocking and persistent: an operation whose cursor the
// engine advances.
int run_plan(const Call &c, Resolved &r, const Async &async, CallTrace &t) {
  const Signature &sig = *r.sig;
  Context &ctx = r.ctx;
  VectorLayout vl;
  std::shared_ptr<const Plan> plan = plan_for(c, r, vl);
  const MPI_Op op = c.op == MPI_OP_NULL ? MPI_SUM : unit_op(sig, c.op);
  const std::size_t unit = sig.shape.unit;
  if (!async.blocking()) {
    auto kept = std::make_shared<KeptCall>(c, sig);
    auto po = std::make_unique<PlanOperation>(async.kind, c.comm, &ctx);
    kept->hold(po->held);
    po->plan = std::move(plan);
    if (c.vec) kept->vl = std::move(vl);
    const PlanStaging &st =
        kept->plan_staging.emplace(kept->c, kept->sig, *po->plan, c.vec ? &kept->vl : nullptr, ctx);
    po->reducer.emplace(kept->sig.unit_type, unit, op);
    po->comm = ctx.comm();
    po->scratch.resize(st.scratch_bytes());
    po->stage = [kept](char *scratch, ExecBuffers *bufs) -> int {
      PhaseTimer untimed(false);
      return kept->plan_staging->stage(scratch, bufs, untimed);
    };
    po->unstage = [kept](char *scratch) -> int {
      PhaseTimer untimed(false);
      return kept->plan_staging->unstage(scratch, untimed);
    };
    return t.issue_described(std::move(po));
  }
  t.scope().plan(r.d->params, plan->phases);
  const PlanStaging st(c, sig, *plan, c.vec ? &vl : nullptr, ctx);
  char *scratch =
      static_cast<char *>(ctx.scratch(st.scratch_bytes(), std::max(st.send_bytes, st.recv_bytes)));
  ExecBuffers bufs;
  int rc = st.stage(scratch, &bufs, t.pack());
  if (rc != MPI_SUCCESS) return fail_call(c.comm, rc);
  if (uses_node(*plan)) bufs.node = ctx.next_node_channel(true, *plan);
  std::optional<Reducer> own;
  const Reducer &reducer = is_predefined_op(op) && sig.predefined_unit
                               ? ctx.predefined_reducer(sig.unit_type, unit, op)
                               : own.emplace(sig.unit_type, unit, op);
  std::vector<double> *phases = t.scope().phase_seconds();
  rc = operations_outstanding() ? execute_while_progressing(*plan, bufs, reducer, ctx, phases)
                                : execute(*plan, bufs, reducer, ctx, phases);
  if (rc == MPI_SUCCESS) rc = st.unstage(scratch, t.unpack());
  t.add_pack_phases();
  return rc == MPI_SUCCESS ? rc : fail_call(c.comm, rc);
}

// One call of a collective: resolve, then its action. `vendor(handles, request)` calls the
// vendor with the user's arguments (blocking when request is null, else its nonblocking twin);
// `vendor_in_units(handles, in, out, count, type, op, request)` calls it in the signature's units
// (reductions with a predefined op on a derived datatype, the reproducible mode:
// Signature::vendor_in_units).
template <class Vendor, class VendorInUnits>
int run(const Call &c, Vendor vendor, VendorInUnits vendor_in_units, Async async = {}) {
  progress();  // outstanding nonblocking collectives move on whenever the program enters pcoll
  // The context first: creating the first one arms PCOLL_TRACE, so the first call is recorded
  // too (its time then excludes the one-off context creation).
  int err = MPI_SUCCESS;
  Context *ctx = Context::get(c.comm, &err);
  trace::CallScope scope;  // when tracing is off: one predictable branch
  if (ctx == nullptr) return fail_call(c.comm, err);
  Resolved r(*ctx);
  if (const int rc = resolve(c, async, r); rc != MPI_SUCCESS) return rc;
  CallTrace t(scope, c, r, async);
  switch (action_of(r)) {
    case Action::moves_nothing:
      return run_moves_nothing(c, r, async, t);
    case Action::vendor_direct:
      return run_vendor_direct(c, r, vendor, async, t);
    case Action::vendor_in_units:
      return run_vendor_in_units(c, r, vendor_in_units, async, t);
    case Action::plan_run:
      return run_plan(c, r, async, t);
  }
  return fail_call(c.comm, MPI_ERR_INTERN);
}

// For data movement, whose vendor path always takes the user's arguments.
constexpr auto no_units = [](const VendorHandles &, const void *, void *, int, MPI_Datatype,
                             MPI_Op, MPI_Request *) -> int {
  return MPI_ERR_INTERN;
};

int allreduce_impl(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                    MPI_Comm comm, Async async) {
  return guarded(comm, [&]() -> int {
    if (int rc = check_args(comm, count, datatype, op, true); rc != MPI_SUCCESS) return rc;
    if (null_data(recvbuf, count, datatype) || null_data(sendbuf, count, datatype))
      return fail_call(comm, MPI_ERR_BUFFER, "null buffer with a non-zero count");
    if (count > 0 && aliased(sendbuf, recvbuf))
      return fail_call(comm, MPI_ERR_BUFFER, "send and receive buffers alias (use MPI_IN_PLACE)");
    Call c{Collective::allreduce, comm, count, op, sendbuf, recvbuf};
    c.sendcount = c.recvcount = count;
    c.sendtype = c.recvtype = datatype;
    return run(
        c, [=](const VendorHandles &h, MPI_Request *r) -> int { return r ? PMPI_Iallreduce(sendbuf, recvbuf, count, h.recvtype, h.op, h.comm, r) : PMPI_Allreduce(sendbuf, recvbuf, count, h.recvtype, h.op, h.comm); },
        [=](const VendorHandles &h, const void *s, void *r, int n, MPI_Datatype t, MPI_Op o, MPI_Request *q) -> int { return q ? PMPI_Iallreduce(s, r, n, t, o, h.comm, q) : PMPI_Allreduce(s, r, n, t, o, h.comm); }, async);
  });
}

int reduce_scatter_block_impl(const void *sendbuf, void *recvbuf, int recvcount,
                               MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, Async async) {
  return guarded(comm, [&]() -> int {
    if (int rc = check_args(comm, recvcount, datatype, op, true); rc != MPI_SUCCESS) return rc;
    if (null_data(recvbuf, recvcount, datatype) || null_data(sendbuf, recvcount, datatype))
      return fail_call(comm, MPI_ERR_BUFFER, "null buffer with a non-zero count");
    if (recvcount > 0 && aliased(sendbuf, recvbuf))
      return fail_call(comm, MPI_ERR_BUFFER, "send and receive buffers alias (use MPI_IN_PLACE)");
    int size = 1, inter = 0;
    MPI_Comm_size(comm, &size);
    MPI_Comm_test_inter(comm, &inter);
    Call c{Collective::reduce_scatter_block, comm, recvcount, op, sendbuf, recvbuf};
    c.sendcount = recvcount * size;  // P blocks in; in place they are in recvbuf
    c.recvcount = sendbuf == MPI_IN_PLACE ? recvcount * size : recvcount;
    c.sendtype = c.recvtype = datatype;
    return run(
        c,
        [=](const VendorHandles &h, MPI_Request *r) -> int { return r ? PMPI_Ireduce_scatter_block(sendbuf, recvbuf, recvcount, h.recvtype, h.op, h.comm, r) : PMPI_Reduce_scatter_block(sendbuf, recvbuf, recvcount, h.recvtype, h.op, h.comm); },
        [=](const VendorHandles &h, const void *s, void *r, int n, MPI_Datatype t, MPI_Op o, MPI_Request *q) -> int { return q ? PMPI_Ireduce_scatter_block(s, r, n, t, o, h.comm, q) : PMPI_Reduce_scatter_block(s, r, n, t, o, h.comm); }, async);
  });
}

int reduce_scatter_impl(const void *sendbuf, void *recvbuf, const int recvcounts[],
                        MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, Async async) {
  return guarded(comm, [&]() -> int {
    if (int rc = check_args(comm, 0, datatype, op, true); rc != MPI_SUCCESS) return rc;
    if (recvcounts == nullptr) return fail_call(comm, MPI_ERR_ARG, "null recvcounts array");
    int size = 1, inter = 0, me = 0;
    MPI_Comm_test_inter(comm, &inter);
    MPI_Comm_size(comm, &size);
    MPI_Comm_rank(comm, &me);
    long long total = 0;
    for (int q = 0; q < size; ++q) {
      if (recvcounts[q] < 0) return fail_call(comm, MPI_ERR_COUNT, "negative count");
      total += recvcounts[q];
    }
    if (total > INT_MAX)
      return fail_call(comm, MPI_ERR_COUNT, "the counts add up to more than an int can hold");
    const bool in_place = sendbuf == MPI_IN_PLACE;
    if (null_data(recvbuf, in_place ? total : recvcounts[me], datatype) ||
        null_data(sendbuf, total, datatype))
      return fail_call(comm, MPI_ERR_BUFFER, "null buffer with a non-zero count");
    if (total > 0 && aliased(sendbuf, recvbuf))
      return fail_call(comm, MPI_ERR_BUFFER, "send and receive buffers alias (use MPI_IN_PLACE)");
    // count: the mean block, rounded up (every rank computes it alike from recvcounts).
    const int mean = static_cast<int>((total + size - 1) / size);
    Call c{Collective::reduce_scatter, comm, mean, op, sendbuf, recvbuf};
    c.sendcount = static_cast<int>(total);  // all blocks in; in place they are in recvbuf
    c.recvcount = in_place ? static_cast<int>(total) : recvcounts[me];
    c.sendtype = c.recvtype = datatype;
    c.block_counts = inter ? nullptr : recvcounts;  // inter-communicators: the vendor's, as given
    // The vendor in units (a derived datatype, the reproducible mode) gets recvcounts scaled by
    // the units per element, which run() passes as n; kept with the call (a nonblocking one reads
    // the array until it completes).
    auto scaled = std::make_shared<std::vector<int>>(static_cast<std::size_t>(size));
    return run(
        c,
        [=](const VendorHandles &h, MPI_Request *r) -> int { return r ? PMPI_Ireduce_scatter(sendbuf, recvbuf, recvcounts, h.recvtype, h.op, h.comm, r) : PMPI_Reduce_scatter(sendbuf, recvbuf, recvcounts, h.recvtype, h.op, h.comm); },
        [=](const VendorHandles &h, const void *s, void *r, int n, MPI_Datatype t, MPI_Op o, MPI_Request *q) -> int {
          for (int k = 0; k < size; ++k) (*scaled)[static_cast<std::size_t>(k)] = recvcounts[k] * n;
          return q ? PMPI_Ireduce_scatter(s, r, scaled->data(), t, o, h.comm, q) : PMPI_Reduce_scatter(s, r, scaled->data(), t, o, h.comm); }, async);
  });
}

int allgather_impl(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                    int recvcount, MPI_Datatype recvtype, MPI_Comm comm, Async async) {
  return guarded(comm, [&]() -> int {
    if (int rc = check_args(comm, recvcount, recvtype, MPI_OP_NULL, false); rc != MPI_SUCCESS)
      return rc;
    const bool in_place = sendbuf == MPI_IN_PLACE;
    if (!in_place && (sendcount < 0 || sendtype == MPI_DATATYPE_NULL))
      return fail_call(comm, sendcount < 0 ? MPI_ERR_COUNT : MPI_ERR_TYPE, "bad send count or type");
    if (null_data(recvbuf, recvcount, recvtype) ||
        (!in_place && null_data(sendbuf, sendcount, sendtype)))
      return fail_call(comm, MPI_ERR_BUFFER, "null buffer with a non-zero count");
    int size = 1;
    MPI_Comm_size(comm, &size);
    Call c{Collective::allgather, comm, recvcount, MPI_OP_NULL, sendbuf, recvbuf};
    c.sendcount = sendcount;
    c.sendtype = sendtype;
    c.recvcount = recvcount * size;
    c.recvtype = recvtype;
    return run(
        c,
        [=](const VendorHandles &h, MPI_Request *r) -> int { return r ? PMPI_Iallgather(sendbuf, sendcount, h.sendtype, recvbuf, recvcount, h.recvtype, h.comm, r) : PMPI_Allgather(sendbuf, sendcount, h.sendtype, recvbuf, recvcount, h.recvtype, h.comm); },
        no_units, async);
  });
}

int alltoall_impl(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                   int recvcount, MPI_Datatype recvtype, MPI_Comm comm, Async async) {
  return guarded(comm, [&]() -> int {
    if (int rc = check_args(comm, recvcount, recvtype, MPI_OP_NULL, false); rc != MPI_SUCCESS)
      return rc;
    const bool in_place = sendbuf == MPI_IN_PLACE;  // sendcount and sendtype are ignored then
    if (!in_place && (sendcount < 0 || sendtype == MPI_DATATYPE_NULL))
      return fail_call(comm, sendcount < 0 ? MPI_ERR_COUNT : MPI_ERR_TYPE, "bad send count or type");
    if (null_data(recvbuf, recvcount, recvtype) ||
        (!in_place && null_data(sendbuf, sendcount, sendtype)))
      return fail_call(comm, MPI_ERR_BUFFER, "null buffer with a non-zero count");
    if (recvcount > 0 && aliased(sendbuf, recvbuf))
      return fail_call(comm, MPI_ERR_BUFFER, "send and receive buffers alias (use MPI_IN_PLACE)");
    int size = 1, inter = 0;
    MPI_Comm_test_inter(comm, &inter);
    if (inter)
      MPI_Comm_remote_size(comm, &size);
    else
      MPI_Comm_size(comm, &size);
    Call c{Collective::alltoall, comm, recvcount, MPI_OP_NULL, sendbuf, recvbuf};
    c.sendcount = sendcount * size;
    c.sendtype = sendtype;
    c.recvcount = recvcount * size;
    c.recvtype = recvtype;
    return run(
        c,
        [=](const VendorHandles &h, MPI_Request *r) -> int { return r ? PMPI_Ialltoall(sendbuf, sendcount, h.sendtype, recvbuf, recvcount, h.recvtype, h.comm, r) : PMPI_Alltoall(sendbuf, sendcount, h.sendtype, recvbuf, recvcount, h.recvtype, h.comm); },
        no_units, async);
  });
}

int alltoallv_impl(const void *sendbuf, const int sendcounts[], const int sdispls[],
                    MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                    const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm, Async async) {
  return guarded(comm, [&]() -> int {
    if (int rc = check_args(comm, 0, recvtype, MPI_OP_NULL, false); rc != MPI_SUCCESS) return rc;
    const bool in_place = sendbuf == MPI_IN_PLACE;  // sendcounts, sdispls, sendtype ignored then
    if (!in_place && sendtype == MPI_DATATYPE_NULL)
      return fail_call(comm, MPI_ERR_TYPE, "MPI_DATATYPE_NULL");
    int inter = 0, peers = 1;
    MPI_Comm_test_inter(comm, &inter);
    if (inter)
      MPI_Comm_remote_size(comm, &peers);
    else
      MPI_Comm_size(comm, &peers);
    if (recvcounts == nullptr || rdispls == nullptr ||
        (!in_place && (sendcounts == nullptr || sdispls == nullptr)))
      return fail_call(comm, MPI_ERR_ARG, "null counts or displacements array");
    long long sent = 0, received = 0;
    for (int q = 0; q < peers; ++q) {
      if (recvcounts[q] < 0 || (!in_place && sendcounts[q] < 0))
        return fail_call(comm, MPI_ERR_COUNT, "negative count");
      received += recvcounts[q];
      if (!in_place) sent += sendcounts[q];
    }
    if (null_data(recvbuf, received, recvtype) || (!in_place && null_data(sendbuf, sent, sendtype)))
      return fail_call(comm, MPI_ERR_BUFFER, "null buffer with a non-zero count");
    if (!in_place && (sent > 0 || received > 0) && aliased(sendbuf, recvbuf))
      return fail_call(comm, MPI_ERR_BUFFER, "send and receive buffers alias (use MPI_IN_PLACE)");
    const VectorArgs v{peers, sendcounts, sdispls, recvcounts, rdispls};
    // count 1 stands for "some data of these types": every rank has its own counts, so nothing
    // count-dependent may be decided (the rank's peers could decide otherwise).
    Call c{Collective::alltoallv, comm, 1, MPI_OP_NULL, sendbuf, recvbuf};
    c.sendtype = sendtype;
    c.recvtype = recvtype;
    c.vec = &v;
    return run(
        c,
        [=](const VendorHandles &h, MPI_Request *r) -> int { return r ? PMPI_Ialltoallv(sendbuf, sendcounts, sdispls, h.sendtype, recvbuf, recvcounts,
                                rdispls, h.recvtype, h.comm, r) : PMPI_Alltoallv(sendbuf, sendcounts, sdispls, h.sendtype, recvbuf, recvcounts,
                                rdispls, h.recvtype, h.comm); },
        no_units, async);
  });
}

int allgatherv_impl(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                    const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                    MPI_Comm comm, Async async) {
  return guarded(comm, [&]() -> int {
    if (int rc = check_args(comm, 0, recvtype, MPI_OP_NULL, false); rc != MPI_SUCCESS) return rc;
    const bool in_place = sendbuf == MPI_IN_PLACE;  // sendcount and sendtype ignored then
    if (!in_place && (sendcount < 0 || sendtype == MPI_DATATYPE_NULL))
      return fail_call(comm, sendcount < 0 ? MPI_ERR_COUNT : MPI_ERR_TYPE, "bad send count or type");
    int inter = 0, peers = 1, me = 0;
    MPI_Comm_test_inter(comm, &inter);
    if (inter)
      MPI_Comm_remote_size(comm, &peers);
    else
      MPI_Comm_size(comm, &peers);
    MPI_Comm_rank(comm, &me);
    if (recvcounts == nullptr || displs == nullptr)
      return fail_call(comm, MPI_ERR_ARG, "null counts or displacements array");
    long long received = 0;
    for (int q = 0; q < peers; ++q) {
      if (recvcounts[q] < 0) return fail_call(comm, MPI_ERR_COUNT, "negative count");
      received += recvcounts[q];
    }
    if (null_data(recvbuf, received, recvtype) ||
        (!in_place && null_data(sendbuf, sendcount, sendtype)))
      return fail_call(comm, MPI_ERR_BUFFER, "null buffer with a non-zero count");
    if (!in_place && received > 0 && aliased(sendbuf, recvbuf))
      return fail_call(comm, MPI_ERR_BUFFER, "send and receive buffers alias (use MPI_IN_PLACE)");
    VectorArgs v{peers, nullptr, nullptr, recvcounts, displs};
    v.gather = true;
    v.rank = inter ? 0 : me;
    v.one_count = in_place ? 0 : sendcount;
    v.sendcounts = &v.one_count;
    v.sdispls = &v.one_displ;
    Call c{Collective::allgatherv, comm, 1, MPI_OP_NULL, sendbuf, recvbuf};
    c.sendcount = in_place ? 0 : sendcount;
    c.sendtype = sendtype;
    c.recvtype = recvtype;
    c.vec = &v;
    return run(
        c,
        [=](const VendorHandles &h, MPI_Request *r) -> int { return r ? PMPI_Iallgatherv(sendbuf, sendcount, h.sendtype, recvbuf, recvcounts, displs, h.recvtype, h.comm, r) : PMPI_Allgatherv(sendbuf, sendcount, h.sendtype, recvbuf, recvcounts, displs, h.recvtype, h.comm); },
        no_units, async);
  });
}

int bcast_impl(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm, Async async) {
  return guarded(comm, [&]() -> int {
    if (int rc = check_args(comm, count, datatype, MPI_OP_NULL, false); rc != MPI_SUCCESS)
      return rc;
    int inter = 0, size = 1;
    MPI_Comm_test_inter(comm, &inter);
    MPI_Comm_size(comm, &size);
    // Inter-communicators name the root differently (MPI_ROOT, MPI_PROC_NULL): the vendor's.
    if (!inter && (root < 0 || root >= size)) return fail_call(comm, MPI_ERR_ROOT, "root out of range");
    if (null_data(buffer, count, datatype))
      return fail_call(comm, MPI_ERR_BUFFER, "null buffer with a non-zero count");
    Call c{Collective::bcast, comm, count, MPI_OP_NULL, MPI_IN_PLACE, buffer};
    c.recvcount = count;
    c.recvtype = datatype;
    c.root = inter ? 0 : root;
    return run(
        c, [=](const VendorHandles &h, MPI_Request *r) -> int { return r ? PMPI_Ibcast(buffer, count, h.recvtype, root, h.comm, r) : PMPI_Bcast(buffer, count, h.recvtype, root, h.comm); }, no_units, async);
  });
}

int reduce_impl(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                 int root, MPI_Comm comm, Async async) {
  return guarded(comm, [&]() -> int {
    if (int rc = check_args(comm, count, datatype, op, true); rc != MPI_SUCCESS) return rc;
    int inter = 0, size = 1, rank = 0;
    MPI_Comm_test_inter(comm, &inter);
    MPI_Comm_size(comm, &size);
    MPI_Comm_rank(comm, &rank);
    if (!inter && (root < 0 || root >= size)) return fail_call(comm, MPI_ERR_ROOT, "root out of range");
    const bool at_root = !inter && rank == root;
    if (null_data(sendbuf, count, datatype) || (at_root && null_data(recvbuf, count, datatype)))
      return fail_call(comm, MPI_ERR_BUFFER, "null buffer with a non-zero count");
    if (!inter && !at_root && sendbuf == MPI_IN_PLACE)
      return fail_call(comm, MPI_ERR_BUFFER, "MPI_IN_PLACE is for the root only");
    if (count > 0 && at_root && aliased(sendbuf, recvbuf))
      return fail_call(comm, MPI_ERR_BUFFER, "send and receive buffers alias (use MPI_IN_PLACE)");
    // Off the root the receive buffer is not significant: no side, and the plans never touch it.
    Call c{Collective::reduce, comm, count, op, sendbuf, recvbuf};
    c.sendcount = count;
    c.recvcount = at_root || inter ? count : 0;
    c.sendtype = c.recvtype = datatype;
    c.root = inter ? 0 : root;
    return run(
        c, [=](const VendorHandles &h, MPI_Request *r) -> int { return r ? PMPI_Ireduce(sendbuf, recvbuf, count, h.recvtype, h.op, root, h.comm, r) : PMPI_Reduce(sendbuf, recvbuf, count, h.recvtype, h.op, root, h.comm); },
        [=](const VendorHandles &h, const void *s, void *r, int n, MPI_Datatype t, MPI_Op o, MPI_Request *q) -> int { return q ? PMPI_Ireduce(s, at_root ? r : nullptr, n, t, o, root, h.comm, q) : PMPI_Reduce(s, at_root ? r : nullptr, n, t, o, root, h.comm); }, async);
  });
}

int barrier_impl(MPI_Comm comm, Async async) {
  return guarded(comm, [&]() -> int {
    if (comm == MPI_COMM_NULL) return fail_call(MPI_COMM_NULL, MPI_ERR_COMM, "MPI_COMM_NULL");
    // One byte of scratch per message (the plans' unit): count 1 of MPI_BYTE, never user data.
    Call c{Collective::barrier, comm, 1, MPI_OP_NULL, MPI_IN_PLACE, nullptr};
    c.recvtype = MPI_BYTE;
    return run(
        c, [=](const VendorHandles &h, MPI_Request *r) -> int { return r ? PMPI_Ibarrier(h.comm, r) : PMPI_Barrier(h.comm); }, no_units, async);
  });
}

}  // namespace

extern "C" {

const char *PCOLL_Version(void) {
  return PCOLL_VERSION_STRING;
}

// --- the collectives: blocking, nonblocking (MPI_I<coll>) and persistent (MPI_<Coll>_init) ------
// Generated from collectives.def: each form calls <name>_impl with the blocking call's arguments
// and how it completes. MPI_Info hints of the persistent calls: none is used yet (MPI lets an
// implementation ignore them).

#define PCOLL_UNPAREN(...) __VA_ARGS__
#define PCOLL_COLLECTIVE(Name, name, Params, Args)                                           \
  int PCOLL_##Name Params { return name##_impl(PCOLL_UNPAREN Args, Async{}); }               \
  int PCOLL_I##name(PCOLL_UNPAREN Params, MPI_Request *request) {                            \
    if (request == nullptr) return fail_call(comm, MPI_ERR_REQUEST, "null request pointer");      \
    return name##_impl(PCOLL_UNPAREN Args, Async{request, Operation::Kind::nonblocking});    \
  }                                                                                          \
  int PCOLL_##Name##_init(PCOLL_UNPAREN Params, MPI_Info, MPI_Request *request) {            \
    if (request == nullptr) return fail_call(comm, MPI_ERR_REQUEST, "null request pointer");      \
    return name##_impl(PCOLL_UNPAREN Args, Async{request, Operation::Kind::persistent});     \
  }
#include "collectives.def"
#undef PCOLL_UNPAREN

int PCOLL_Config_push(MPI_Comm comm, const char *name, const char *value) {
  return guarded(comm, [&]() -> int {
    if (name == nullptr || value == nullptr) return fail_call(comm, MPI_ERR_ARG, "null name or value");
    const int idx = param_index(name);
    if (idx < 0) {
      std::string known;
      for (const auto &p : param_table()) known += std::string(known.empty() ? "" : ", ") + p.name;
      return fail_call(comm, MPI_ERR_ARG,
                  std::string("unknown parameter '") + name + "'; known: " + known);
    }
    int err = MPI_SUCCESS;
    Context *ctx = Context::get(comm, &err);
    if (ctx == nullptr) return fail_call(comm, err);
    const int rc = ctx->push_override(idx, value);
    return rc == MPI_SUCCESS ? rc : fail_call(comm, rc);
  });
}

int PCOLL_Config_get(MPI_Comm comm, const char *name, const char **value) {
  return guarded(comm, [&]() -> int {
    if (name == nullptr || value == nullptr) return fail_call(comm, MPI_ERR_ARG, "null name or value");
    if (param_index(name) < 0)
      return fail_call(comm, MPI_ERR_ARG, std::string("unknown parameter '") + name + "'");
    int err = MPI_SUCCESS;
    Context *ctx = Context::get(comm, &err);
    if (ctx == nullptr) return fail_call(comm, err);
    *value = ctx->config().get(name).c_str();
    return MPI_SUCCESS;
  });
}

int PCOLL_Config_pop(MPI_Comm comm) {
  return guarded(comm, [&]() -> int {
    int err = MPI_SUCCESS;
    Context *ctx = Context::get(comm, &err);
    if (ctx == nullptr) return fail_call(comm, err);
    const int rc = ctx->pop_override();
    return rc == MPI_SUCCESS ? rc : fail_call(comm, rc, "PCOLL_Config_pop without a matching push");
  });
}

const char *PCOLL_Algorithm_name(const char *collective, int index) {
  try {
    if (collective == nullptr || index < 0) return nullptr;
    for (Collective c : all_collectives()) {
      if (std::strcmp(collective, collective_name(c)) != 0) continue;
      const auto algos = algorithms_of(c);
      return index < static_cast<int>(algos.size()) ? algos[static_cast<std::size_t>(index)]->name
                                                    : nullptr;
    }
    return nullptr;
  } catch (...) {
    return nullptr;
  }
}

int PCOLL_Get_last_algorithm(MPI_Comm comm, const char **name) {
  return guarded(comm, [&]() -> int {
    int err = MPI_SUCCESS;
    Context *ctx = Context::get(comm, &err);
    if (ctx == nullptr) return fail_call(comm, err);
    *name = ctx->last_algorithm;
    return MPI_SUCCESS;
  });
}

}  // extern "C"
