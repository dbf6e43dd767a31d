// The C API: argument validation -> context -> selection -> plan cache -> executor.
#include <pcoll/pcoll.h>

#include <algorithm>
#include <cstring>
#include <exception>
#include <memory>
#include <new>
#include <optional>
#include <set>
#include <sstream>
#include <string>

#include "config.hpp"
#include "context.hpp"
#include "executor.hpp"
#include "reduce.hpp"
#include "registry.hpp"
#include "select.hpp"
#include "trace/recorder.hpp"

using namespace pcoll;

namespace {

// MPI's convention: call the communicator's error handler, then return the code.
int fail(MPI_Comm comm, int code, const std::string &msg = {}) {
  if (!msg.empty()) report(msg);
  if (comm != MPI_COMM_NULL) MPI_Comm_call_errhandler(comm, code);
  return code;
}

// No C++ exception crosses the C API: every PCOLL_ entry runs its body through guarded(), which
// maps std::bad_alloc to MPI_ERR_NO_MEM and anything else to MPI_ERR_INTERN, then calls the
// communicator's error handler like every other error.
template <class Body>
int guarded(MPI_Comm comm, Body body) noexcept {
  try {
    return body();
  } catch (const std::bad_alloc &) {
    return fail(comm, MPI_ERR_NO_MEM, "out of memory");
  } catch (const std::exception &e) {
    return fail(comm, MPI_ERR_INTERN, std::string("internal error: ") + e.what());
  } catch (...) {
    return fail(comm, MPI_ERR_INTERN, "internal error (unknown exception)");
  }
}

std::string plan_key(const AlgorithmInfo &algo, const PlanRequest &req) {
  std::ostringstream os;
  os << collective_name(algo.coll) << '/' << algo.name << '/' << req.count << '/' << req.type_size
     << '/' << req.ranks_per_node << "/root=" << req.root;
  for (const auto &p : req.params) os << '/' << p.first << '=' << p.second;
  return os.str();
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
// communicator's rank 0 (nobody else would). Evaluated only on a warning's first occurrence.
bool speaker(const Context &ctx) {
  MPI_Group world = MPI_GROUP_NULL, group = MPI_GROUP_NULL;
  PMPI_Comm_group(MPI_COMM_WORLD, &world);
  PMPI_Comm_group(ctx.comm(), &group);
  int zero = 0, there = MPI_UNDEFINED;
  PMPI_Group_translate_ranks(world, 1, &zero, group, &there);
  PMPI_Group_free(&world);
  PMPI_Group_free(&group);
  return ctx.rank() == (there == MPI_UNDEFINED ? 0 : there);
}

// "vendor (fallback: REASON)", the algorithm name the trace records for a call pcoll handed to
// the vendor: the reason up to its first parenthesis, short enough for the trace's column.
std::string fallback_label(const std::string &reason) {
  std::string r = reason.substr(0, reason.find(" ("));
  if (r.size() > 72) r = r.substr(0, 69) + "...";
  return "vendor (fallback: " + r + ")";
}

// Applies the fallback policy; returns MPI_SUCCESS to go on with `sel.algo`. `auto` never fails
// a call: when none of pcoll's algorithms can serve it, the vendor does, and `warn` says why.
int apply_fallback(Context &ctx, const Selection &sel, const std::string &reason, MPI_Comm comm) {
  if (reason.empty()) return MPI_SUCCESS;
  const std::string &mode = ctx.config().get("fallback");
  const bool is_auto = sel.fallback_reason.empty();
  const std::string msg = std::string(collective_name(sel.requested->coll)) + " algorithm '" +
                          (is_auto ? "auto" : sel.requested->name) +
                          "' cannot serve this call: " + reason;
  if (mode == "error" && !is_auto) return fail(comm, MPI_ERR_ARG, msg + " (PCOLL_FALLBACK=error)");
  if (mode == "warn" && first_in_process(msg) && speaker(ctx))
    report(msg +
           "; using vendor instead (warned once per process and reason; "
           "PCOLL_FALLBACK=silent hides this)");
  return MPI_SUCCESS;
}

// Why the call goes to the vendor although the configuration did not ask for it: the explicit
// algorithm's failed restriction, or for `auto` the first of pcoll's algorithms' (their common
// checks, contiguity, inter-communicators, size, come first); empty when pcoll serves it.
std::string fallback_reason(const Config &cfg, const Selection &sel, const CallShape &shape) {
  if (!sel.fallback_reason.empty()) return sel.fallback_reason;
  // A rule that names vendor is a measured choice (nothing beat it), not a fallback.
  if (!sel.algo->is_vendor() || sel.rule != nullptr ||
      cfg.get(collective_name(shape.coll)) == "vendor")
    return {};
  for (const AlgorithmInfo *a : algorithms_of(shape.coll)) {
    if (a->is_vendor()) continue;
    std::string why = restriction_failure(*a, shape, cfg);
    if (!why.empty()) return why;
  }
  return {};
}

// A null buffer with a non-zero count is an error, except MPI_BOTTOM (a null pointer in Open MPI
// and MPICH) with a datatype of absolute addresses: its non-zero lower bound makes it
// non-contiguous, so the call reaches the vendor through the fallback, as MPI programs expect.
bool null_data(const void *buf, long long count, MPI_Datatype dt) {
  return buf == nullptr && count > 0 && (dt == MPI_DATATYPE_NULL || describe_type(dt).contiguous);
}
// Send and receive buffers that are the same memory (MPI_BOTTOM for both is not: the datatypes
// say where the data is).
bool aliased(const void *sendbuf, const void *recvbuf) {
  return sendbuf == recvbuf && sendbuf != MPI_BOTTOM;
}

// Argument checks common to the collectives (MPI's error classes).
int check_args(MPI_Comm comm, int count, MPI_Datatype dt, MPI_Op op, bool has_op) {
  if (comm == MPI_COMM_NULL) return fail(MPI_COMM_NULL, MPI_ERR_COMM, "MPI_COMM_NULL");
  if (count < 0) return fail(comm, MPI_ERR_COUNT, "negative count");
  if (dt == MPI_DATATYPE_NULL) return fail(comm, MPI_ERR_TYPE, "MPI_DATATYPE_NULL");
  if (has_op && op == MPI_OP_NULL) return fail(comm, MPI_ERR_OP, "MPI_OP_NULL");
  return MPI_SUCCESS;
}

// One call of a collective after its own argument checks: context, selection, fallback, and
// either the vendor (`vendor` callback) or the cached plan run by the executor.
struct Call {
  Collective coll;
  MPI_Comm comm;
  int count;  // allreduce: elements; others: elements per rank
  MPI_Datatype dt;
  MPI_Op op;  // MPI_OP_NULL for allgather
  const void *sendbuf;
  void *recvbuf;
  // The send side where it has its own count and type (allgather, alltoall); -1: as the receive.
  int send_count = -1;
  MPI_Datatype send_dt = MPI_DATATYPE_NULL;
  // Per-rank layout collectives (alltoallv): this rank's counts and displacements; `count` and
  // `send_count` are then 1, standing for "some data of these types" (each rank has its own
  // counts, so nothing count-dependent may be decided: the rank's peers could decide otherwise).
  const Layout *layout = nullptr;
  std::size_t trace_count = 0;  // elements the trace records when there is a layout
  int root = 0;                 // bcast, reduce

  bool same_send() const {
    return sendbuf == MPI_IN_PLACE || send_count < 0 || (send_dt == dt && send_count == count);
  }
};

// Whether the send side lays out its bytes exactly like the receive side (CallShape::send_matches):
// then the plan, which moves elements of the receive type, serves both.
bool send_matches(const Call &c, const TypeInfo &recv) {
  if (c.same_send()) return true;
  const TypeInfo s = describe_type(c.send_dt);
  return (s.contiguous || c.send_count == 0) && s.size * static_cast<std::size_t>(c.send_count) ==
                                                    recv.size * static_cast<std::size_t>(c.count);
}

// The slow path of a call: describe the datatype, select, apply the fallback policy, say any
// warning once, resolve parameters and build (or find) the plan. Returns MPI_SUCCESS or the
// error the fallback policy asks for.
int decide(Context &ctx, const Call &c, bool commutative, Context::Decision &d) {
  CallShape shape{
      c.coll,      ctx.size(),     static_cast<std::size_t>(c.count), describe_type(c.dt),
      commutative, ctx.intercomm()};
  shape.needs_reduction = c.op != MPI_OP_NULL;
  shape.send_matches = send_matches(c, shape.type);
  shape.ranks_per_node = ctx.ranks_per_node();
  shape.root = c.root;
  const Selection sel = select_algorithm(ctx.config(), ctx.rules(), shape);
  const std::string reason = fallback_reason(ctx.config(), sel, shape);
  if (int rc = apply_fallback(ctx, sel, reason, c.comm); rc != MPI_SUCCESS) return rc;
  d.algo = sel.algo;
  if (!reason.empty()) d.trace_name = fallback_label(reason);
  d.type = shape.type;
  if (sel.algo->is_vendor()) return MPI_SUCCESS;
  const PlanRequest req =
      plan_request(*sel.algo, effective_config(ctx.config(), sel), ctx.rank(), shape);
  if (sel.algo->warning && ctx.config().get("fallback") == "warn") {
    // Shapes an algorithm handles poorly (e.g. CHiArA without a usable batch size) are said once.
    const std::string note = sel.algo->warning(req);
    if (!note.empty() && first_in_process(note) && speaker(ctx))
      report(std::string(collective_name(c.coll)) + " " + sel.algo->name + ": " + note);
  }
  d.params = req.params;
  if (c.layout != nullptr) {  // plans by layout, in run()
    d.req = req;
    d.layout_plans = std::make_shared<Context::LayoutPlans>();
    return MPI_SUCCESS;
  }
  if (c.count == 0) return MPI_SUCCESS;
  const std::string key = plan_key(*sel.algo, req);
  d.plan = ctx.find_plan(key);
  if (!d.plan) {
    d.plan = std::make_shared<const Plan>(make_plan(*sel.algo, req));
    ctx.store_plan(key, d.plan);
  }
  return MPI_SUCCESS;
}

template <class Vendor>
int run(const Call &c, Vendor vendor) {
  // The context first: creating the first one arms PCOLL_TRACE, so the first call is recorded
  // too (its time then excludes the one-off context creation).
  int err = MPI_SUCCESS;
  Context *ctx = Context::get(c.comm, &err);
  trace::CallScope trace_call;  // when tracing is off: one predictable branch
  if (ctx == nullptr) return fail(c.comm, err);
  if (ctx->config_error() != MPI_SUCCESS) return fail(c.comm, ctx->config_error());

  // A loop repeating its last call (same collective, count, type, op, root) finds that decision
  // in the context's one-entry memo: no op query, no hashing.
  const Context::Decision *d =
      c.same_send() ? ctx->memo_find(c.coll, c.count, c.dt, c.op, c.root) : nullptr;
  bool cacheable = d != nullptr;
  std::optional<Context::Decision> fresh;
  if (d == nullptr) {
    int commute = 1;
    if (c.op != MPI_OP_NULL) PMPI_Op_commutative(c.op, &commute);
    // Predefined datatypes: the decision for this call shape is cached on the communicator.
    // Only such decisions are ever stored, and a predefined handle never names another type, so
    // a hit needs no datatype inspection; a miss checks before storing.
    const Context::DecisionKey key{c.coll, c.count, c.dt, commute != 0, c.op != MPI_OP_NULL,
                                   c.root};
    d = c.same_send() ? ctx->find_decision(key) : nullptr;
    cacheable = d != nullptr;
    if (d == nullptr) {
      if (int rc = decide(*ctx, c, commute != 0, fresh.emplace()); rc != MPI_SUCCESS) return rc;
      cacheable = c.same_send() && fresh->type.predefined;  // decide() described the type
      if (cacheable) {
        ctx->store_decision(key, std::move(*fresh));
        d = ctx->find_decision(key);
      } else {
        d = &*fresh;
      }
    }
    if (cacheable) ctx->memo_store(c.coll, c.count, c.dt, c.op, c.root, d);
  }
  ctx->last_algorithm = d->algo->name;
  trace_call.describe(ctx->comm(), collective_name(c.coll),
                      d->trace_name.empty() ? d->algo->name : d->trace_name.c_str(),
                      c.layout ? c.trace_count : static_cast<std::size_t>(c.count), d->type.size);

  if (d->algo->is_vendor()) {
    const int rc = vendor();
    return rc == MPI_SUCCESS ? rc : fail(c.comm, rc);
  }
  std::shared_ptr<const Plan> layout_plan;
  if (c.layout != nullptr) {
    layout_plan = d->layout_plans->find(*c.layout);
    if (!layout_plan) {
      PlanRequest req = d->req;
      req.layout = c.layout;
      layout_plan = std::make_shared<const Plan>(make_plan(*d->algo, req));
      d->layout_plans->store(*c.layout, layout_plan);
    }
  } else if (c.count == 0) {
    return MPI_SUCCESS;
  }

  const Plan &plan = c.layout ? *layout_plan : *d->plan;
  trace_call.plan(d->params, plan.phases);
  const std::size_t esz = d->type.size;
  const CollectiveInfo &row = collective_info(c.coll);
  const std::size_t tmp_bytes = plan.tmp_elems * esz;
  const bool staged = c.sendbuf == MPI_IN_PLACE && row.in_place_staged;
  char *scratch = static_cast<char *>(ctx->scratch(tmp_bytes + (staged ? plan.in_elems * esz : 0)));
  const void *in = c.sendbuf;
  if (c.sendbuf == MPI_IN_PLACE) {
    // MPI_IN_PLACE: the input sits in recvbuf where the collective's row says; collectives whose
    // plans overwrite input they still have to send read a copy of it behind the scratch space.
    in = static_cast<const char *>(c.recvbuf) +
         esz * row.in_place_offset(ctx->rank(), std::size_t(c.count), ctx->size());
    if (staged) {
      std::memcpy(scratch + tmp_bytes, in, plan.in_elems * esz);
      in = scratch + tmp_bytes;
    }
  } else if (plan.copy_in_to_out) {
    std::memcpy(c.recvbuf, c.sendbuf, esz * plan.out_elems);
  }
  ExecBuffers bufs{in, c.recvbuf, scratch, esz};
  const MPI_Op op = c.op == MPI_OP_NULL ? MPI_SUM : c.op;
  std::optional<Reducer> own;
  const Reducer &reducer =
      cacheable ? ctx->predefined_reducer(c.dt, op, d->type) : own.emplace(c.dt, op, d->type);
  const int rc = execute(plan, bufs, reducer, *ctx, trace_call.phase_seconds());
  return rc == MPI_SUCCESS ? rc : fail(c.comm, rc);
}

}  // namespace

extern "C" {

const char *PCOLL_Version(void) {
  return "0.1.0";
}

int PCOLL_Allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                    MPI_Comm comm) {
  return guarded(comm, [&]() -> int {
    if (int rc = check_args(comm, count, datatype, op, true); rc != MPI_SUCCESS) return rc;
    if (null_data(recvbuf, count, datatype) || null_data(sendbuf, count, datatype))
      return fail(comm, MPI_ERR_BUFFER, "null buffer with a non-zero count");
    if (count > 0 && aliased(sendbuf, recvbuf))
      return fail(comm, MPI_ERR_BUFFER, "send and receive buffers alias (use MPI_IN_PLACE)");
    return run({Collective::allreduce, comm, count, datatype, op, sendbuf, recvbuf},
               [&] { return PMPI_Allreduce(sendbuf, recvbuf, count, datatype, op, comm); });
  });
}

int PCOLL_Reduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount,
                               MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
  return guarded(comm, [&]() -> int {
    if (int rc = check_args(comm, recvcount, datatype, op, true); rc != MPI_SUCCESS) return rc;
    if (null_data(recvbuf, recvcount, datatype) || null_data(sendbuf, recvcount, datatype))
      return fail(comm, MPI_ERR_BUFFER, "null buffer with a non-zero count");
    if (recvcount > 0 && aliased(sendbuf, recvbuf))
      return fail(comm, MPI_ERR_BUFFER, "send and receive buffers alias (use MPI_IN_PLACE)");
    return run(
        {Collective::reduce_scatter_block, comm, recvcount, datatype, op, sendbuf, recvbuf},
        [&] { return PMPI_Reduce_scatter_block(sendbuf, recvbuf, recvcount, datatype, op, comm); });
  });
}

int PCOLL_Allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                    int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  return guarded(comm, [&]() -> int {
    if (int rc = check_args(comm, recvcount, recvtype, MPI_OP_NULL, false); rc != MPI_SUCCESS)
      return rc;
    const bool in_place = sendbuf == MPI_IN_PLACE;
    if (!in_place && (sendcount < 0 || sendtype == MPI_DATATYPE_NULL))
      return fail(comm, sendcount < 0 ? MPI_ERR_COUNT : MPI_ERR_TYPE, "bad send count or type");
    if (null_data(recvbuf, recvcount, recvtype) ||
        (!in_place && null_data(sendbuf, sendcount, sendtype)))
      return fail(comm, MPI_ERR_BUFFER, "null buffer with a non-zero count");
    auto vendor = [&] {
      return PMPI_Allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
    };
    // A send type/count that lays out the bytes differently goes to the vendor through the
    // fallback policy (select.cpp, CallShape::send_matches).
    return run({Collective::allgather, comm, recvcount, recvtype, MPI_OP_NULL, sendbuf, recvbuf,
                sendcount, sendtype},
               vendor);
  });
}

int PCOLL_Alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                   int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  return guarded(comm, [&]() -> int {
    if (int rc = check_args(comm, recvcount, recvtype, MPI_OP_NULL, false); rc != MPI_SUCCESS)
      return rc;
    const bool in_place = sendbuf == MPI_IN_PLACE;  // sendcount and sendtype are ignored then
    if (!in_place && (sendcount < 0 || sendtype == MPI_DATATYPE_NULL))
      return fail(comm, sendcount < 0 ? MPI_ERR_COUNT : MPI_ERR_TYPE, "bad send count or type");
    if (null_data(recvbuf, recvcount, recvtype) ||
        (!in_place && null_data(sendbuf, sendcount, sendtype)))
      return fail(comm, MPI_ERR_BUFFER, "null buffer with a non-zero count");
    if (recvcount > 0 && aliased(sendbuf, recvbuf))
      return fail(comm, MPI_ERR_BUFFER, "send and receive buffers alias (use MPI_IN_PLACE)");
    auto vendor = [&] {
      return PMPI_Alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
    };
    return run({Collective::alltoall, comm, recvcount, recvtype, MPI_OP_NULL, sendbuf, recvbuf,
                sendcount, sendtype},
               vendor);
  });
}

int PCOLL_Alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                    MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                    const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm) {
  return guarded(comm, [&]() -> int {
    if (int rc = check_args(comm, 0, recvtype, MPI_OP_NULL, false); rc != MPI_SUCCESS) return rc;
    const bool in_place = sendbuf == MPI_IN_PLACE;  // sendcounts, sdispls, sendtype ignored then
    if (!in_place && sendtype == MPI_DATATYPE_NULL)
      return fail(comm, MPI_ERR_TYPE, "MPI_DATATYPE_NULL");
    int inter = 0, peers = 1;
    MPI_Comm_test_inter(comm, &inter);
    if (inter)
      MPI_Comm_remote_size(comm, &peers);
    else
      MPI_Comm_size(comm, &peers);
    if (recvcounts == nullptr || rdispls == nullptr ||
        (!in_place && (sendcounts == nullptr || sdispls == nullptr)))
      return fail(comm, MPI_ERR_ARG, "null counts or displacements array");
    long long sent = 0, received = 0;
    for (int q = 0; q < peers; ++q) {
      if (recvcounts[q] < 0 || (!in_place && sendcounts[q] < 0))
        return fail(comm, MPI_ERR_COUNT, "negative count");
      received += recvcounts[q];
      if (!in_place) sent += sendcounts[q];
    }
    if (null_data(recvbuf, received, recvtype) || (!in_place && null_data(sendbuf, sent, sendtype)))
      return fail(comm, MPI_ERR_BUFFER, "null buffer with a non-zero count");
    if (!in_place && (sent > 0 || received > 0) && aliased(sendbuf, recvbuf))
      return fail(comm, MPI_ERR_BUFFER, "send and receive buffers alias (use MPI_IN_PLACE)");
    auto vendor = [&] {
      return PMPI_Alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls,
                            recvtype, comm);
    };
    // This rank's layout in elements, displacements made non-negative by moving the buffer
    // pointers to the lowest block used (MPI allows negative displacements). The plans need it
    // only when the types are contiguous, where elements and extents agree.
    Layout layout;
    const auto P = static_cast<std::size_t>(peers);
    auto rebase = [P](const int *counts, const int *displs, std::vector<std::size_t> &c,
                      std::vector<std::size_t> &d) {
      long long lo = 0;
      for (std::size_t q = 0; q < P; ++q)
        if (counts[q] > 0) lo = std::min<long long>(lo, displs[q]);
      c.resize(P);
      d.resize(P);
      for (std::size_t q = 0; q < P; ++q) {
        c[q] = static_cast<std::size_t>(counts[q]);
        d[q] = counts[q] > 0 ? static_cast<std::size_t>(displs[q] - lo) : 0;
      }
      return lo;
    };
    const long long rlo = rebase(recvcounts, rdispls, layout.recvcounts, layout.rdispls);
    const long long slo =
        in_place ? rlo : rebase(sendcounts, sdispls, layout.sendcounts, layout.sdispls);
    if (in_place) {
      layout.sendcounts = layout.recvcounts;
      layout.sdispls = layout.rdispls;
    }
    MPI_Aint lb = 0, rext = 1, sext = 1;
    MPI_Type_get_extent(recvtype, &lb, &rext);
    if (!in_place) MPI_Type_get_extent(sendtype, &lb, &sext);
    char *recv = static_cast<char *>(recvbuf) + rlo * rext;
    const void *send = in_place ? MPI_IN_PLACE : static_cast<const char *>(sendbuf) + slo * sext;
    Call call{Collective::alltoallv, comm, 1, recvtype, MPI_OP_NULL, send, recv, 1, sendtype};
    if (in_place) call.send_count = -1;
    call.layout = &layout;
    call.trace_count = static_cast<std::size_t>(received);
    return run(call, vendor);
  });
}

int PCOLL_Bcast(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm) {
  return guarded(comm, [&]() -> int {
    if (int rc = check_args(comm, count, datatype, MPI_OP_NULL, false); rc != MPI_SUCCESS)
      return rc;
    auto vendor = [&] { return PMPI_Bcast(buffer, count, datatype, root, comm); };
    int inter = 0, size = 1;
    MPI_Comm_test_inter(comm, &inter);
    MPI_Comm_size(comm, &size);
    // Inter-communicators name the root differently (MPI_ROOT, MPI_PROC_NULL): the vendor's.
    if (!inter && (root < 0 || root >= size)) return fail(comm, MPI_ERR_ROOT, "root out of range");
    if (null_data(buffer, count, datatype))
      return fail(comm, MPI_ERR_BUFFER, "null buffer with a non-zero count");
    Call call{Collective::bcast, comm, count, datatype, MPI_OP_NULL, MPI_IN_PLACE, buffer};
    call.root = inter ? 0 : root;
    return run(call, vendor);
  });
}

int PCOLL_Reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                 int root, MPI_Comm comm) {
  return guarded(comm, [&]() -> int {
    if (int rc = check_args(comm, count, datatype, op, true); rc != MPI_SUCCESS) return rc;
    auto vendor = [&] { return PMPI_Reduce(sendbuf, recvbuf, count, datatype, op, root, comm); };
    int inter = 0, size = 1, rank = 0;
    MPI_Comm_test_inter(comm, &inter);
    MPI_Comm_size(comm, &size);
    MPI_Comm_rank(comm, &rank);
    if (!inter && (root < 0 || root >= size)) return fail(comm, MPI_ERR_ROOT, "root out of range");
    const bool at_root = !inter && rank == root;
    if (null_data(sendbuf, count, datatype) || (at_root && null_data(recvbuf, count, datatype)))
      return fail(comm, MPI_ERR_BUFFER, "null buffer with a non-zero count");
    if (!inter && !at_root && sendbuf == MPI_IN_PLACE)
      return fail(comm, MPI_ERR_BUFFER, "MPI_IN_PLACE is for the root only");
    if (count > 0 && at_root && aliased(sendbuf, recvbuf))
      return fail(comm, MPI_ERR_BUFFER, "send and receive buffers alias (use MPI_IN_PLACE)");
    // Off the root the receive buffer is not significant: the plans never touch it.
    Call call{Collective::reduce, comm, count, datatype, op, sendbuf, recvbuf};
    call.root = inter ? 0 : root;
    return run(call, vendor);
  });
}

int PCOLL_Barrier(MPI_Comm comm) {
  return guarded(comm, [&]() -> int {
    if (comm == MPI_COMM_NULL) return fail(MPI_COMM_NULL, MPI_ERR_COMM, "MPI_COMM_NULL");
    // One byte of scratch per message (the plans' unit): count 1 of MPI_BYTE, never user data.
    return run({Collective::barrier, comm, 1, MPI_BYTE, MPI_OP_NULL, MPI_IN_PLACE, nullptr},
               [&] { return PMPI_Barrier(comm); });
  });
}

int PCOLL_Config_push(MPI_Comm comm, const char *name, const char *value) {
  return guarded(comm, [&]() -> int {
    if (name == nullptr || value == nullptr) return fail(comm, MPI_ERR_ARG, "null name or value");
    const int idx = param_index(name);
    if (idx < 0) {
      std::string known;
      for (const auto &p : param_table()) known += std::string(known.empty() ? "" : ", ") + p.name;
      return fail(comm, MPI_ERR_ARG,
                  std::string("unknown parameter '") + name + "'; known: " + known);
    }
    int err = MPI_SUCCESS;
    Context *ctx = Context::get(comm, &err);
    if (ctx == nullptr) return fail(comm, err);
    const int rc = ctx->push_override(idx, value);
    return rc == MPI_SUCCESS ? rc : fail(comm, rc);
  });
}

int PCOLL_Config_get(MPI_Comm comm, const char *name, const char **value) {
  return guarded(comm, [&]() -> int {
    if (name == nullptr || value == nullptr) return fail(comm, MPI_ERR_ARG, "null name or value");
    if (param_index(name) < 0)
      return fail(comm, MPI_ERR_ARG, std::string("unknown parameter '") + name + "'");
    int err = MPI_SUCCESS;
    Context *ctx = Context::get(comm, &err);
    if (ctx == nullptr) return fail(comm, err);
    *value = ctx->config().get(name).c_str();
    return MPI_SUCCESS;
  });
}

int PCOLL_Config_pop(MPI_Comm comm) {
  return guarded(comm, [&]() -> int {
    int err = MPI_SUCCESS;
    Context *ctx = Context::get(comm, &err);
    if (ctx == nullptr) return fail(comm, err);
    const int rc = ctx->pop_override();
    return rc == MPI_SUCCESS ? rc : fail(comm, rc, "PCOLL_Config_pop without a matching push");
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
    if (ctx == nullptr) return fail(comm, err);
    *name = ctx->last_algorithm;
    return MPI_SUCCESS;
  });
}

}  // extern "C"
