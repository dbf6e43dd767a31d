// Nonblocking and persistent collectives: an Operation is one call's plan with a cursor (or the
// vendor's own nonblocking call), its buffers' staging, and the MPI_Request the program holds.
//
// - A nonblocking call's request is an MPI generalized request (MPI_Grequest_start), so the
//   program may complete it with MPI's own MPI_Wait/Test/... mixed with point-to-point requests:
//   pcoll completes the generalized request when the plan's last round is done. Progress is made
//   whenever the program enters pcoll: every PCOLL_ call and PCOLL_Wait/Test/... (which
//   libpcoll_mpi.so installs as MPI_Wait/Test/...). A program linked with libpcoll alone that
//   calls MPI_Wait itself on a pcoll request would wait forever: it calls PCOLL_Wait, or links
//   libpcoll_mpi.so too, or
//   runs with the progress thread (PCOLL_PROGRESS=thread, engine.hpp), which completes the
//   generalized request by itself.
// - A persistent call's request is a token pcoll owns (an inactive persistent request to
//   MPI_PROC_NULL, so an MPI call pcoll does not intercept treats it as an inactive request):
//   PCOLL_Start starts its operation, PCOLL_Wait/Test complete it and leave it inactive,
//   PCOLL_Request_free frees both. The plan, the decision and the buffers' layout are fixed at
//   init: a start stages the buffers and posts the first round, nothing else.
// - Every outstanding operation on a communicator has its own tag (its sequence number), so
//   collectives outstanding at once never match each other's messages; they may complete in any
//   order.
//
// pcoll is not thread-safe: like every other pcoll call, these run on one thread at a time, the
// program's, and with PCOLL_PROGRESS=thread also the progress thread, each under the engine
// lock (engine.hpp).
#pragma once

#include <mpi.h>

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "executor.hpp"
#include "plan.hpp"
#include "reduce.hpp"
#include "trace/recorder.hpp"

namespace pcoll {

class Context;

// The datatypes and user op an outstanding operation still needs after its call returned (to
// pack, unpack, reduce, or call the vendor at a later start). MPI lets the program free them
// while the operation is pending (MPI_Type_free: "any communication that is currently using this
// datatype will complete normally"; MPI_Op_free only marks the op for deallocation), so the
// operation keeps its own: a duplicate of each derived datatype, and a hold on a user op, whose
// MPI_Op_free (PCOLL_Op_free, which libpcoll_mpi.so installs as MPI_Op_free) is deferred to the
// last release. A program linked with libpcoll alone that frees a user op before its pcoll
// operations complete calls PCOLL_Op_free.
class HeldHandles {
 public:
  HeldHandles() = default;
  ~HeldHandles();
  HeldHandles(const HeldHandles &) = delete;
  HeldHandles &operator=(const HeldHandles &) = delete;
  // The operation's own handle for t: a duplicate for a derived datatype (one per distinct t),
  // t itself for a predefined one.
  MPI_Datatype type(MPI_Datatype t);
  // Holds a user op until this object dies (predefined ops need nothing).
  void op(MPI_Op o);

 private:
  std::vector<std::pair<MPI_Datatype, MPI_Datatype>> types_;  // (the user's, our duplicate)
  MPI_Op op_ = MPI_OP_NULL;
};

class Operation {
 public:
  enum class Kind { nonblocking, persistent };
  // Holds ctx (Context::hold) for the operation's life: a communicator freed with operations
  // outstanding lives until they are released.
  Operation(Kind kind, MPI_Comm user_comm, Context *ctx);
  virtual ~Operation();
  Operation(const Operation &) = delete;
  Operation &operator=(const Operation &) = delete;

  // What a start does: stage the buffers (pack, copy in place input) and post the first round
  // (plans) or call the vendor's nonblocking collective. Returns an MPI error code.
  virtual int begin() = 0;
  // Advances without blocking; true when complete (after its unstaging).
  virtual bool advance() = 0;
  // Its transfers in flight that are not known complete (see Cursor::pending), and the report
  // of one that failed when a caller waited for it.
  virtual void pending(std::vector<MPI_Request *> &out) const = 0;
  virtual void failed(int rc) = 0;
  // Whether it needs polling to move on (shared-memory flags), which no vendor wait would see.
  virtual bool polls_memory() const { return false; }

  Kind kind() const { return kind_; }
  MPI_Comm user_comm() const { return user_comm_; }
  Context &context() const { return *ctx_; }
  HeldHandles held;  // the datatypes and op the operation uses after its call

  // Engine bookkeeping (request.cpp).
  MPI_Request handle = MPI_REQUEST_NULL;  // what the program holds
  bool active_ = false;                   // started, its plan not yet complete
  bool mpi_active_ = false;  // persistent: started and not yet completed by a wait or test
  bool engine_done_ = false, mpi_freed_ = false;  // nonblocking: who still holds it
  int err_ = MPI_SUCCESS;

  // Tracing: what a record of this operation says (set at the call, when tracing is on), and
  // the record of the start in flight (opened at each start, added at its completion).
  struct Described {
    bool set = false;
    MPI_Comm comm = MPI_COMM_NULL;  // the context's communicator
    std::string coll, algo;         // "iallreduce" / "allreduce_init", the algorithm's label
    std::size_t count = 0, type_size = 0;
    std::vector<std::pair<std::string, long long>> params;
    std::vector<std::string> phases;
  } described;
  trace::OpRecord record;
  // Sets what the operation's records will say (when tracing is on at the call).
  void describe(MPI_Comm comm, std::string coll, std::string algo, std::size_t count,
                std::size_t type_size) {
    described.set = true;
    described.comm = comm;
    described.coll = std::move(coll);
    described.algo = std::move(algo);
    described.count = count;
    described.type_size = type_size;
  }
  void open_record() {
    if (described.set)
      record.open(described.comm, described.coll, described.algo, described.count,
                  described.type_size, described.params, described.phases);
  }

 private:
  Kind kind_;
  MPI_Comm user_comm_;
  Context *ctx_;
};

// A plan run by a cursor on buffers staged by `stage` (at each start) and `unstage` (at
// completion), with its own scratch memory.
class PlanOperation final : public Operation {
 public:
  PlanOperation(Kind kind, MPI_Comm user_comm, Context *ctx)
      : Operation(kind, user_comm, ctx) {}
  std::shared_ptr<const Plan> plan;
  std::optional<Reducer> reducer;
  MPI_Comm comm = MPI_COMM_NULL;  // the private communicator
  int fixed_tag = 0;  // persistent: its tag, fixed at init (0: the next nonblocking tag per start)
  std::vector<char> scratch;      // the call's own (a blocking call's is the context's)
  ExecBuffers bufs;               // set by stage
  std::function<int(char *scratch, ExecBuffers *bufs)> stage;
  std::function<int(char *scratch)> unstage;
  int begin() override;
  bool advance() override;
  void pending(std::vector<MPI_Request *> &out) const override { cursor_.pending(out); }
  void failed(int rc) override { cursor_.note_failure(rc); }
  bool polls_memory() const override { return cursor_.polls_memory(); }

 private:
  Cursor cursor_;
  std::vector<MPI_Request> req_;
};

// The vendor's nonblocking collective (PMPI_I<coll>), with staging around it when the call goes
// to the vendor in the signature's units (a derived datatype with a predefined op).
class VendorOperation final : public Operation {
 public:
  VendorOperation(Kind kind, MPI_Comm user_comm, Context *ctx)
      : Operation(kind, user_comm, ctx) {}
  ~VendorOperation() override;
  std::vector<char> scratch;
  // Persistent: the communicator of this operation alone (a duplicate made at init, which every
  // rank makes in the same order), on which each start calls the vendor's nonblocking
  // collective. Persistent collectives match in init order, starts may come in any order (MPI
  // 4.1, Sec. 6.13): on a shared communicator the vendor would match them in start order.
  MPI_Comm own_comm = MPI_COMM_NULL;
  std::function<int(char *scratch, MPI_Request *inner)> start;  // stages and calls the vendor
  std::function<int(char *scratch)> unstage;                     // may be empty
  int begin() override;
  bool advance() override;
  void pending(std::vector<MPI_Request *> &out) const override {
    if (inner_ != MPI_REQUEST_NULL) out.push_back(const_cast<MPI_Request *>(&inner_));
  }
  void failed(int rc) override { waited_err_ = rc; }

 private:
  MPI_Request inner_ = MPI_REQUEST_NULL;
  int waited_err_ = MPI_SUCCESS;  // the vendor's request failed in a caller's wait
};

// The next tag for an operation on ctx's communicator (1..kNonblockingTags).
int next_nonblocking_tag(Context &ctx);

// Hands a new operation to the program: a nonblocking one is started and its generalized
// request stored in *request; a persistent one gets its token and waits for PCOLL_Start.
// Returns an MPI error code (the operation is freed on error).
int issue(std::unique_ptr<Operation> op, MPI_Request *request);

// Makes progress on every outstanding operation (nothing when there is none: one branch).
void progress();
// Whether any operation is outstanding (started and not complete in the engine).
bool operations_outstanding();
// Waits for a vendor request, advancing every outstanding operation while any is (a peer may be
// waiting for one of them before it can complete its part of *request), then in the vendor's
// wait. PCOLL_Wait's tail, and the broadcast of a collective decision (Context::bcast_from_root).
int wait_while_progressing(MPI_Request *request, MPI_Status *status);

// A blocking call made while operations are outstanding must not hold them back: a peer may be
// waiting for one of them before it enters this call (legal MPI: even ranks Iallreduce, Allreduce,
// Wait; odd ranks Iallreduce, Wait, Allreduce). So:
// - a plan runs with the blocking tag (the peers that have nothing outstanding run it as usual),
//   advanced with tests while every outstanding operation is advanced too; the time spent on
//   those is counted in the round's phase;
int execute_while_progressing(const Plan &plan, const ExecBuffers &bufs, const Reducer &reducer,
                      Context &ctx, std::vector<double> *phase_seconds);
// - a blocking vendor call cannot advance pcoll's plans while it waits inside the vendor, so the
//   operations outstanding on its communicator are completed first (every rank does the same
//   before this call, or waits for them, or is in a pcoll call that advances them). Operations
//   on other communicators are not: a program that waits for one of those on one rank while
//   another rank sits in a blocking vendor call can still hang (docs/architecture.md).
void complete_outstanding_on(const Context &ctx);
// PCOLL_Op_free's work: frees a user op now, or at the release of the last operation that holds
// it (HeldHandles).
int free_op(MPI_Op *op);
// Whether any pcoll request exists (outstanding, or persistent): when none does, the completion
// calls of libpcoll_mpi.so hand everything straight to the vendor.
bool requests_in_use();

// --- The engine's requests, for the completion calls (completion.cpp) ---------------------------
// The persistent operation whose token r is, or null.
Operation *persistent_of(MPI_Request r);
// Whether any of the n requests is a persistent pcoll token.
bool any_persistent_token(int n, const MPI_Request *reqs);
// Whether r is the handle of a nonblocking operation still in the engine.
bool outstanding_handle(MPI_Request r);
// Blocks until a transfer of an outstanding operation completes (false when none is pending or
// an operation polls shared-memory flags: then the caller polls).
bool block_once();
// Starts the persistent operation of *request, or the vendor's persistent request.
int start_one(MPI_Request *request);
// A persistent operation's completion by a wait or test: its status and error, then inactive.
int complete_persistent(Operation *op, MPI_Status *st);
// Frees an inactive persistent operation and its token (an active one: MPI_ERR_REQUEST).
int free_persistent(Operation *op, MPI_Request *request);
// MPI's empty status with an error field: what a completed collective reports.
void empty_status(MPI_Status *st, int err);
// An operation's error through its communicator's handler; returned alone once the program has
// freed the communicator (its handle may name another communicator by now).
int op_error(const Operation *op, int code);

}  // namespace pcoll
