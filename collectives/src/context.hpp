// Per-communicator state, cached on the user's communicator with an MPI attribute keyval and
// freed with it: a private duplicate communicator (so our messages can never match the
// application's receives, not even MPI_ANY_SOURCE/MPI_ANY_TAG ones), the node-local size, the
// configuration (checked for agreement across ranks at creation), per-communicator overrides,
// the plan cache, reusable scratch memory and the fallback warnings already given.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "config.hpp"
#include "plan.hpp"
#include "reduce.hpp"
#include "registry.hpp"
#include "rules.hpp"

namespace pcoll {

class Context {
 public:
  // The context of `comm`, created collectively on first use. Returns nullptr and sets *err
  // (with a message already printed) when creation fails.
  static Context *get(MPI_Comm comm, int *err);

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
  // Per-communicator overrides (PCOLL_Config_push/pop). Each distinct override stack keeps its
  // own configuration and decision cache, so a loop that pushes the same override around every
  // call (collbench, a code switching algorithms per phase) finds its decisions still cached:
  // a push or pop selects a cache, it never clears one.
  int push_override(int param, const std::string &value);
  int pop_override();

  // Cached plan for `key`, or nullptr.
  std::shared_ptr<const Plan> find_plan(const std::string &key) const;
  void store_plan(const std::string &key, std::shared_ptr<const Plan> plan);

  // Scratch memory of at least `bytes`, reused across calls.
  void *scratch(std::size_t bytes);
  std::vector<MPI_Request> &requests() { return requests_; }
  // The reducer of the last (predefined datatype, op) pair used: finding the kernel walks the
  // type and op tables, which a loop calling with the same pair should pay for once. Only for
  // predefined datatypes, whose handles never change meaning (an op handle freed and reused by
  // MPI_Op_create goes through MPI_Reduce_local, which reads the handle at each call).
  const Reducer &predefined_reducer(MPI_Datatype dt, MPI_Op op, const TypeInfo &ti) {
    if (!reducer_ || reducer_dt_ != dt || reducer_op_ != op) {
      reducer_.emplace(dt, op, ti);
      reducer_dt_ = dt;
      reducer_op_ = op;
    }
    return *reducer_;
  }

  const char *last_algorithm = "";  // what the last call used (PCOLL_Get_last_algorithm)

  bool intercomm() const { return inter_; }

  // What a call of a given shape resolved to: the algorithm (after any fallback), its resolved
  // parameters and plan. Cached per communicator for calls on predefined datatypes (their
  // handles never change meaning), so a bulk-synchronous loop pays for selection and planning
  // once; cleared whenever the configuration changes.
  // Plans of a per-rank-layout collective (alltoallv) for the last few layouts seen with one
  // decision: the layout is compared in full (4P numbers, no hash that could collide), so a
  // loop that repeats its counts plans once and a call with other counts never gets a stale plan.
  struct LayoutPlans {
    static constexpr std::size_t kKeep = 4;
    std::vector<std::pair<Layout, std::shared_ptr<const Plan>>> entries;  // most recent last
    std::shared_ptr<const Plan> find(const Layout &l) const;
    void store(const Layout &l, std::shared_ptr<const Plan> p);
  };
  struct Decision {
    const AlgorithmInfo *algo = nullptr;
    std::string trace_name;  // "vendor (fallback: reason)" when pcoll had to hand the call over
    std::vector<std::pair<std::string, long long>> params;
    std::shared_ptr<const Plan> plan;  // null for vendor, for count 0 and for layout collectives
    TypeInfo type;
    // Layout collectives: the request the plans are built from (its layout set per call), and
    // the plans by layout (shared: the cached Decision is const, its plans are not).
    PlanRequest req;
    std::shared_ptr<LayoutPlans> layout_plans;
  };
  struct DecisionKey {
    Collective coll;
    int count;
    MPI_Datatype dt;
    bool commutative;
    bool has_op;
    int root = 0;  // bcast, reduce: plans differ per root
    bool operator==(const DecisionKey &o) const {
      return coll == o.coll && count == o.count && dt == o.dt && commutative == o.commutative &&
             has_op == o.has_op && root == o.root;
    }
  };
  const Decision *find_decision(const DecisionKey &k) const;
  void store_decision(const DecisionKey &k, Decision d);
  // The last cached decision and the call it was for. Only predefined ops are remembered: their
  // handles never change meaning, while a user op's handle may be freed and reused with another
  // commutativity. Forgotten whenever the decision cache or the configuration changes.
  const Decision *memo_find(Collective coll, int count, MPI_Datatype dt, MPI_Op op,
                            int root) const {
    return memo_.d != nullptr && memo_.count == count && memo_.dt == dt && memo_.op == op &&
                   memo_.coll == coll && memo_.root == root
               ? memo_.d
               : nullptr;
  }
  void memo_store(Collective coll, int count, MPI_Datatype dt, MPI_Op op, int root,
                  const Decision *d);
  // How many decisions were made (selection + planning: the slow path) on this communicator.
  std::size_t decisions_made() const { return decisions_made_; }

  ~Context();

 private:
  Context() = default;
  int init(MPI_Comm user);
  int check_agreement();

  MPI_Comm comm_ = MPI_COMM_NULL;
  int rank_ = 0, size_ = 1, node_size_ = 1;
  int config_error_ = MPI_SUCCESS;
  Config base_config_;
  using Overrides = std::vector<std::pair<int, std::string>>;
  Overrides overrides_;
  std::unordered_map<std::string, std::shared_ptr<const Plan>> plans_;
  std::vector<char> scratch_;
#ifdef PCOLL_SMPI
  void *shared_scratch_ = nullptr;  // SMPI_SHARED_MALLOC'd (sim_shared_bytes), never freed
  std::size_t shared_scratch_bytes_ = 0;
#endif
  std::vector<MPI_Request> requests_;
  std::optional<Reducer> reducer_;
  MPI_Datatype reducer_dt_ = MPI_DATATYPE_NULL;
  MPI_Op reducer_op_ = MPI_OP_NULL;
  struct KeyHash {
    std::size_t operator()(const DecisionKey &k) const {
      return std::hash<const void *>{}(reinterpret_cast<const void *>(k.dt)) * 31 +
             static_cast<std::size_t>(k.count) * 7 + static_cast<std::size_t>(k.coll) * 3 +
             (k.commutative ? 1 : 0) + (k.has_op ? 2 : 0) + static_cast<std::size_t>(k.root) * 131;
    }
  };
  using Decisions = std::unordered_map<DecisionKey, Decision, KeyHash>;
  // The configuration and decisions of one override stack (the empty stack: the base).
  struct OverrideState {
    Config config;
    std::shared_ptr<const Rules> rules;
    std::string rules_error;  // why PCOLL_RULES of this configuration was rejected
    Decisions decisions;
  };
  // Parsed rules files by PCOLL_RULES value, shared by the override states.
  std::map<std::string, std::shared_ptr<const Rules>> rules_cache_;
  static constexpr std::size_t kMaxOverrideStates = 64;
  // std::map: its nodes never move, so state_ and the strings PCOLL_Config_get hands out stay
  // valid until the state is dropped (only when more than kMaxOverrideStates stacks were seen).
  std::map<Overrides, OverrideState> states_;
  OverrideState *state_ = nullptr;
  std::size_t decisions_made_ = 0;
  struct Memo {
    Collective coll{};
    int count = 0;
    MPI_Datatype dt = MPI_DATATYPE_NULL;
    MPI_Op op = MPI_OP_NULL;
    int root = 0;
    const Decision *d = nullptr;
  } memo_;
  void select_state();  // state_ = the state of overrides_, created on first use
  bool inter_ = false;
};

// Prints "pcoll: <msg>" on stderr.
void report(const std::string &msg);

}  // namespace pcoll
