// Per-communicator state, cached on the user's communicator with an MPI attribute keyval and
// freed with it: a private duplicate communicator (so our messages can never match the
// application's receives, not even MPI_ANY_SOURCE/MPI_ANY_TAG ones), the node-local size, the
// configuration (checked for agreement across ranks at creation), per-communicator overrides,
// the decision cache (one per configuration, with a one-entry memo in front) and reusable
// scratch memory.
#pragma once

#include <mpi.h>

#include <algorithm>
#include <cstddef>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "call.hpp"
#include "config.hpp"
#include "plan.hpp"
#include "reduce.hpp"
#include "registry.hpp"
#include "rules.hpp"
#include "select.hpp"
#include "shm/segment.hpp"

namespace pcoll {

class Context {
 public:
  // The context of `comm`, created collectively on first use. Returns nullptr and sets *err
  // (with a message already printed) when creation fails.
  static Context *get(MPI_Comm comm, int *err);
  // The context of `comm` if it has one; never creates one (not collective).
  static Context *find(MPI_Comm comm);

  MPI_Comm comm() const { return comm_; }
  int rank() const { return rank_; }
  int size() const { return size_; }
  int node_size() const { return node_size_; }  // ranks sharing this rank's node (min over nodes)
  // PCOLL_RANKS_PER_NODE when set (emulated nodes), else node_size().
  int ranks_per_node() const {
    const long long v = config().integer("ranks_per_node");
    return v == kAuto ? node_size_ : static_cast<int>(v);
  }
  // MPI_SUCCESS, or the error every call on this communicator returns (bad configuration).
  int config_error() const { return config_error_; }

  const Config &config() const { return state_->config; }
  // The rules `auto` consults (PCOLL_RULES of the current configuration); never null once the
  // context exists without a configuration error.
  const Rules *rules() const { return state_->rules.get(); }
  // What `auto`'s cost model runs on: the machine description (PCOLL_MACHINE) and where the
  // communicator's ranks live (MPI_COMM_TYPE_SHARED, or PCOLL_RANKS_PER_NODE's blocks).
  ModelInputs model_inputs() const { return {state_->machine.get(), &state_->topology}; }
  // Per-communicator overrides (PCOLL_Config_push/pop). Each distinct override stack keeps its
  // own configuration and decision cache, so a loop that pushes the same override around every
  // call (collbench, a code switching algorithms per phase) finds its decisions still cached:
  // a push or pop selects a cache, it never clears one.
  int push_override(int param, const std::string &value);
  int pop_override();

  // Scratch memory of at least `bytes`, reused across calls, for a call whose own buffers hold
  // `call_bytes` (the larger side). In SMPI builds a call of at least sim_shared_bytes gets a
  // block all simulated ranks share: its contents are then meaningless, as the caller's
  // timing-only buffers of that size are (collbench decides by the same size, so a call whose
  // result it verifies never computes in shared scratch).
  void *scratch(std::size_t bytes, std::size_t call_bytes);
  std::vector<MPI_Request> &requests() { return requests_; }
  // The node segment (shm/segment.hpp): bytes per rank of one channel, 0 without a segment.
  std::size_t node_segment_bytes() const {
    return segment_ ? segment_->channel_bytes() / static_cast<std::size_t>(size_) : 0;
  }
  // The channel of the next shared-memory call on this communicator (blocking or nonblocking:
  // every rank issues them in the same order, so the n-th is the same call everywhere).
  // (shm/segment.hpp's NodeSequence; `plan` is this rank's plan of the call).
  NodeChannel next_node_channel(bool blocking, const Plan &plan) {
    return node_seq_.next(segment_.get(), state_->shm_spin, blocking, plan.waits_for_every_peer);
  }
  // The tag of the next nonblocking or persistent start on this communicator: its sequence
  // number, 1..kNonblockingTags (executor.hpp), the same on every rank.
  int next_nonblocking_tag(int tags) {
    nonblocking_seq_ = nonblocking_seq_ % static_cast<unsigned>(tags) + 1;
    return static_cast<int>(nonblocking_seq_);
  }
  // The reducer of the last (predefined unit type, predefined op) pair used: finding the kernel
  // walks the type and op tables, which a loop calling with the same pair should pay for once.
  // Only for predefined types and ops, whose handles never change meaning (a user op's handle
  // freed and reused by MPI_Op_create gets a reducer of its own at each call).
  const Reducer &predefined_reducer(MPI_Datatype unit, std::size_t unit_bytes, MPI_Op op) {
    if (!reducer_ || reducer_dt_ != unit || reducer_op_ != op) {
      reducer_.emplace(unit, unit_bytes, op);
      reducer_dt_ = unit;
      reducer_op_ = op;
    }
    return *reducer_;
  }

  const char *last_algorithm = "";  // what the last call used (PCOLL_Get_last_algorithm)

  bool intercomm() const { return inter_; }

  // Lifetime. MPI lets a program free a communicator while collectives on it are outstanding
  // (the communicator lives until they complete), and restart a persistent collective whose
  // communicator it has freed. Every pcoll operation holds the context of its communicator from
  // its call to its release (completion of a nonblocking one, MPI_Request_free of a persistent
  // one); MPI_Comm_free then only detaches the context from the user's handle (which MPI may
  // reuse for a new communicator), and the last release deletes it.
  void hold() { ++holds_; }
  void release();
  // The user's communicator was freed: errors of the operations still outstanding on it are
  // returned, never passed to its (gone) error handler.
  bool user_freed() const { return user_freed_; }
  // Called by the attribute's delete callback (MPI_Comm_free, MPI_Finalize).
  void detach();
  // The tag of a persistent operation, fixed at its init: persistent collectives match in the
  // order they were initialised, not started (MPI 4.1, Sec. 6.13), and every rank initialises
  // them in the same order. kPersistentTagBase.. (executor.hpp), apart from the nonblocking tags.
  int next_persistent_tag(int base, int tags) {
    persistent_seq_ = persistent_seq_ % static_cast<unsigned>(tags) + 1;
    return base + static_cast<int>(persistent_seq_) - 1;
  }

  // The decision for `shape` under the current configuration: from the cache, else made by
  // decide() (select.hpp) and stored. Shapes hold only values every rank shares, so every rank
  // finds or makes the same decision.
  // decide_collectively: every rank of the communicator must call it at the same call (every
  // blocking call, whatever each rank has outstanding): where the cost model must choose, rank 0
  // runs it and broadcasts its choice (bcast_from_root), so its cost is paid once per
  // communicator. decide_locally: no communication (nonblocking and persistent calls are local
  // in MPI): every rank runs the model on the same inputs, to the same choice.
  const Decision &decide_collectively(const CallShape &shape) { return decision(shape, true); }
  const Decision &decide_locally(const CallShape &shape) { return decision(shape, false); }
  // A one-entry memo of the last call by its arguments as the user passed them, for calls whose
  // datatype and op are predefined (their handles never change meaning; derived types and user
  // ops are described anew, from their cached descriptions): a loop repeating its call finds its
  // signature and decision without describing the datatype or hashing the shape. Forgotten
  // whenever the decision cache or the configuration changes. Calls whose signature depends on
  // counts per peer (allgatherv, reduce_scatter) pass them: the memo keeps a copy and compares
  // it in full (n ints), never by hash.
  struct MemoKey {
    Collective coll{};
    int count = 0;
    int sendcount = -1;  // -1 with MPI_IN_PLACE
    MPI_Datatype recvtype = MPI_DATATYPE_NULL;
    MPI_Datatype sendtype = MPI_DATATYPE_NULL;  // MPI_DATATYPE_NULL with MPI_IN_PLACE
    MPI_Op op = MPI_OP_NULL;
    int root = 0;
    bool persistent = false;
    bool operator==(const MemoKey &o) const {
      return count == o.count && recvtype == o.recvtype && op == o.op && coll == o.coll &&
             sendtype == o.sendtype && sendcount == o.sendcount && root == o.root &&
             persistent == o.persistent;
    }
  };
  const Decision *memo_find(const MemoKey &k, const Signature **sig, const int *counts = nullptr,
                            int n = 0) const {
    if (memo_.d == nullptr || !(memo_.key == k)) return nullptr;
    if (memo_.counts.size() != static_cast<std::size_t>(counts ? n : 0) ||
        (counts && !std::equal(memo_.counts.begin(), memo_.counts.end(), counts)))
      return nullptr;
    *sig = &memo_.sig;
    return memo_.d;
  }
  void memo_store(const MemoKey &k, const Signature &sig, const Decision *d,
                  const int *counts = nullptr, int n = 0);
  // How many decisions were made (selection + planning: the slow path) on this communicator.
  std::size_t decisions_made() const { return decisions_made_; }
  // How many times rank 0 ran the cost model for a decision (0 on the other ranks): once per
  // size class of the count (select.hpp), not per count.
  std::size_t model_runs() const { return model_runs_; }

  ~Context();

 private:
  std::string model_decides(const CallShape &shape, const ModelInputs &in);
  void remember_choice(const CallShape &at, const Candidate &chosen);

  Context() = default;
  int init(MPI_Comm user);
  int check_agreement();

  MPI_Comm comm_ = MPI_COMM_NULL;
  int rank_ = 0, size_ = 1, node_size_ = 1;
  int config_error_ = MPI_SUCCESS;
  Config base_config_;
  using Overrides = std::vector<std::pair<int, std::string>>;
  Overrides overrides_;
  std::vector<char> scratch_;
#ifdef PCOLL_SMPI
  void *shared_scratch_ = nullptr;  // SMPI_SHARED_MALLOC'd (sim_shared_bytes), never freed
  std::size_t shared_scratch_bytes_ = 0;
#endif
  std::vector<MPI_Request> requests_;
  std::unique_ptr<NodeSegment> segment_;
  NodeSequence node_seq_;  // the shared-memory calls issued
  void make_segment();
  unsigned nonblocking_seq_ = 0;
  unsigned persistent_seq_ = 0;
  int holds_ = 0;           // operations holding this context
  bool user_freed_ = false;  // the user's communicator is gone (detach)
  std::optional<Reducer> reducer_;
  MPI_Datatype reducer_dt_ = MPI_DATATYPE_NULL;
  MPI_Op reducer_op_ = MPI_OP_NULL;
  // decide_collectively (collective = true) and decide_locally.
  const Decision &decision(const CallShape &shape, bool collective);
  // Rank 0's `buf` to every rank of the private communicator, advancing pcoll's outstanding
  // operations while it waits.
  void bcast_from_root(void *buf, int n, MPI_Datatype type);
  using Decisions = std::unordered_map<CallShape, Decision, CallShapeHash>;
  // The configuration and decisions of one override stack (the empty stack: the base).
  struct OverrideState {
    Config config;
    std::shared_ptr<const Rules> rules;
    std::string rules_error;  // why PCOLL_RULES of this configuration was rejected
    std::shared_ptr<const Machine> machine;
    std::string machine_error;  // why PCOLL_MACHINE of this configuration was rejected
    Topology topology;
    long long shm_spin = 0;  // PCOLL_SHM_SPIN, parsed once (read at every shared-memory call)
    Decisions decisions;
    // Rank 0 only: the cost model's choice per size class (keyed by model_shape()), so that a
    // new count of a class already decided costs a restriction check, not the model.
    std::unordered_map<CallShape, Candidate, CallShapeHash> model_choices;
  };
  // Parsed rules files and machine descriptions by value, shared by the override states.
  std::map<std::string, std::shared_ptr<const Rules>> rules_cache_;
  std::map<std::string, std::shared_ptr<const Machine>> machine_cache_;
  // The node of every rank as MPI_COMM_TYPE_SHARED found it, when the ranks of a node are not
  // consecutive blocks of one size (nullptr: they are, of node_size_ ranks).
  std::shared_ptr<const std::vector<int>> node_of_;
  int block_size_ = 1;  // ranks of each node when they are consecutive blocks (the last shorter)
  static constexpr std::size_t kMaxOverrideStates = 64;
  // std::map: its nodes never move, so state_ and the strings PCOLL_Config_get hands out stay
  // valid until the state is dropped (only when more than kMaxOverrideStates stacks were seen).
  std::map<Overrides, OverrideState> states_;
  OverrideState *state_ = nullptr;
  std::size_t decisions_made_ = 0;
  std::size_t model_runs_ = 0;
  struct Memo {
    MemoKey key;
    Signature sig;
    const Decision *d = nullptr;
    std::vector<int> counts;  // the call's counts per peer, where its signature depends on them
  } memo_;
  void select_state();  // state_ = the state of overrides_, created on first use
  bool inter_ = false;
};

// Prints "pcoll: <msg>" on stderr.
void report(const std::string &msg);

}  // namespace pcoll
