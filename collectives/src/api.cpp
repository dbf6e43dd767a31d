// The C API: argument validation -> context -> selection -> plan cache -> executor.
#include <pcoll/pcoll.h>

#include <cstring>
#include <memory>
#include <sstream>
#include <string>

#include "config.hpp"
#include "context.hpp"
#include "executor.hpp"
#include "reduce.hpp"
#include "registry.hpp"
#include "schedule.hpp"
#include "select.hpp"

using namespace pcoll;

namespace {

// MPI's convention: call the communicator's error handler, then return the code.
int fail(MPI_Comm comm, int code, const std::string &msg = {}) {
  if (!msg.empty()) report(msg);
  if (comm != MPI_COMM_NULL) MPI_Comm_call_errhandler(comm, code);
  return code;
}

std::string plan_key(const AlgorithmInfo &algo, const PlanRequest &req) {
  std::ostringstream os;
  os << collective_name(algo.coll) << '/' << algo.name << '/' << req.count << '/' << req.type_size;
  for (const auto &p : req.params) os << '/' << p.first << '=' << p.second;
  return os.str();
}

// Applies the fallback policy; returns MPI_SUCCESS to go on with `sel.algo`.
int apply_fallback(Context &ctx, const Selection &sel, MPI_Comm comm) {
  if (sel.fallback_reason.empty()) return MPI_SUCCESS;
  const std::string &mode = ctx.config().get("fallback");
  const std::string msg = std::string(collective_name(sel.requested->coll)) + " algorithm '" +
                          sel.requested->name + "' cannot serve this call: " + sel.fallback_reason;
  if (mode == "error") return fail(comm, MPI_ERR_ARG, msg + " (PCOLL_FALLBACK=error)");
  if (mode == "warn" && ctx.first_warning(msg) && ctx.rank() == 0)
    report(msg +
           "; using vendor instead (warned once per communicator and reason; "
           "PCOLL_FALLBACK=silent hides this)");
  return MPI_SUCCESS;
}

}  // namespace

extern "C" {

const char *PCOLL_Version(void) {
  return "0.1.0";
}

int PCOLL_Allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                    MPI_Comm comm) {
  if (comm == MPI_COMM_NULL) return fail(MPI_COMM_NULL, MPI_ERR_COMM, "MPI_COMM_NULL");
  if (count < 0) return fail(comm, MPI_ERR_COUNT, "negative count");
  if (datatype == MPI_DATATYPE_NULL) return fail(comm, MPI_ERR_TYPE, "MPI_DATATYPE_NULL");
  if (op == MPI_OP_NULL) return fail(comm, MPI_ERR_OP, "MPI_OP_NULL");
  if (count > 0 && (recvbuf == nullptr || sendbuf == nullptr))
    return fail(comm, MPI_ERR_BUFFER, "null buffer with a non-zero count");
  if (count > 0 && sendbuf == recvbuf)
    return fail(comm, MPI_ERR_BUFFER, "send and receive buffers alias (use MPI_IN_PLACE)");

  int err = MPI_SUCCESS;
  Context *ctx = Context::get(comm, &err);
  if (ctx == nullptr) return fail(comm, err);
  if (ctx->config_error() != MPI_SUCCESS) return fail(comm, ctx->config_error());

  int inter = 0, commute = 0;
  MPI_Comm_test_inter(comm, &inter);
  MPI_Op_commutative(op, &commute);
  CallShape shape{Collective::allreduce,   ctx->size(),  static_cast<std::size_t>(count),
                  describe_type(datatype), commute != 0, inter != 0};
  const Selection sel = select_algorithm(ctx->config(), shape);
  if (int rc = apply_fallback(*ctx, sel, comm); rc != MPI_SUCCESS) return rc;
  ctx->last_algorithm = sel.algo->name;

  if (sel.algo->is_vendor()) {
    const int rc = PMPI_Allreduce(sendbuf, recvbuf, count, datatype, op, comm);
    return rc == MPI_SUCCESS ? rc : fail(comm, rc);
  }
  if (count == 0) return MPI_SUCCESS;

  const PlanRequest req = plan_request(*sel.algo, ctx->config(), ctx->rank(), shape);
  const std::string key = plan_key(*sel.algo, req);
  std::shared_ptr<const Plan> plan = ctx->find_plan(key);
  if (!plan) {
    plan = std::make_shared<const Plan>(make_plan(*sel.algo, req));
    ctx->store_plan(key, plan);
  }
  const std::size_t bytes = shape.type.size * static_cast<std::size_t>(count);
  const bool in_place = sendbuf == MPI_IN_PLACE;
  if (!in_place && plan->copy_in_to_out) std::memcpy(recvbuf, sendbuf, bytes);
  ExecBuffers bufs{in_place ? recvbuf : sendbuf, recvbuf,
                   ctx->scratch(plan->tmp_elems * shape.type.size), shape.type.size};
  const Reducer reducer(datatype, op, shape.type);
  const int rc = execute(*plan, bufs, reducer, *ctx, nullptr);
  return rc == MPI_SUCCESS ? rc : fail(comm, rc);
}

int PCOLL_Config_push(MPI_Comm comm, const char *name, const char *value) {
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
}

int PCOLL_Config_pop(MPI_Comm comm) {
  int err = MPI_SUCCESS;
  Context *ctx = Context::get(comm, &err);
  if (ctx == nullptr) return fail(comm, err);
  const int rc = ctx->pop_override();
  return rc == MPI_SUCCESS ? rc : fail(comm, rc, "PCOLL_Config_pop without a matching push");
}

int PCOLL_Get_last_algorithm(MPI_Comm comm, const char **name) {
  int err = MPI_SUCCESS;
  Context *ctx = Context::get(comm, &err);
  if (ctx == nullptr) return fail(comm, err);
  *name = ctx->last_algorithm.c_str();
  return MPI_SUCCESS;
}

}  // extern "C"
