// The decision layer: a call is described once (CallShape, by values every rank shares) and
// decided once (decide(): algorithm, parameters, why, fallback, plan). api.cpp builds the shape
// and runs the decision; pcoll-info, collbench and the tests call the same decide().
//
// Precedence: per-communicator override (C++ scoped override / PCOLL_Config_push) >
// PCOLL_<COLLECTIVE> environment variable > `auto`. `auto` takes, in this order: the first rule
// of the rules file (PCOLL_RULES, rules.hpp: measured choices, vendor included) whose (P, bytes)
// ranges hold the call and whose algorithm can serve it; the collective's own size rule
// (alltoall's pairwise threshold); the algorithm and parameters with the lowest time of the
// cost model (model.hpp), which reads each candidate's plans on the machine description
// (PCOLL_MACHINE, machine.hpp) with the communicator's ranks-to-nodes map.
//
// Every rank must choose alike, so nothing here may depend on a rank's own buffer layout: a
// call is described by its type signature (datatype.hpp), not by its datatypes. Reductions are
// counted in units of their base type (or of the user's datatype for a user-defined op, which
// MPI requires to be the same on every rank), data movement in bytes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "config.hpp"
#include "machine.hpp"
#include "model.hpp"
#include "registry.hpp"
#include "rules.hpp"

namespace pcoll {

struct Plan;

// A property of the call's type signature (so shared by all ranks) that keeps pcoll's own
// algorithms from serving it: the call then goes to the vendor MPI.
enum class TypeIssue : std::uint8_t {
  none,
  // A reduction with a predefined op on a typemap that mixes basic types (or holds one pcoll
  // cannot walk): MPI's predefined ops are defined per basic type.
  mixed_base,
  // A user-defined op on a datatype whose elements are not dense in memory: MPI calls the op
  // with the user's datatype on its memory layout, which packing would change. MPI requires
  // reductions to use the same datatype on every rank, so this is shared too.
  user_op_layout,
};

struct CallShape {
  Collective coll{};
  int size = 1;
  int ranks_per_node = 0;  // resolved node size (0: one node)
  bool intercomm = false;
  // Units of the signature: reductions count values of the base type (a user op: elements of
  // its datatype), data movement counts bytes. allreduce, reduce, bcast: the whole vector;
  // reduce_scatter_block, allgather, alltoall: one rank's block; alltoallv, barrier: 1.
  std::size_t count = 0;
  std::size_t unit = 1;  // bytes per unit, in packed form
  bool reduction = false;
  bool commutative = true;
  int root = 0;  // bcast, reduce
  TypeIssue issue = TypeIssue::none;
  // Bytes per rank of one channel of the communicator's node segment (shm/segment.hpp), 0 when
  // it has none (ranks on several nodes, PCOLL_SHM=off, or it could not be made). The tools'
  // shapes (of, in_units) assume one made with PCOLL_SHM_SEGMENT's default.
  std::size_t node_segment = 0;
  // A persistent call (MPI_<Coll>_init): the shared-memory plans do not serve it yet.
  bool persistent = false;

  // A shape from (count, type size) as the tools give them: for collectives without an op the
  // count becomes bytes (unit 1), for reductions it stays in units of type_size.
  static CallShape of(Collective coll, int P, std::size_t count, std::size_t type_size = 1);
  // A shape of `count` units of `unit` bytes as given (the symbolic tests plan data movement in
  // elements too: a plan is the same whatever its unit).
  static CallShape in_units(Collective coll, int P, std::size_t count, std::size_t unit);

  bool operator==(const CallShape &o) const {
    return coll == o.coll && size == o.size && ranks_per_node == o.ranks_per_node &&
           intercomm == o.intercomm && count == o.count && unit == o.unit &&
           reduction == o.reduction && commutative == o.commutative && root == o.root &&
           issue == o.issue && node_segment == o.node_segment && persistent == o.persistent;
  }
  std::size_t bytes() const { return count * unit; }
};

struct CallShapeHash {
  std::size_t operator()(const CallShape &s) const {
    std::size_t h = static_cast<std::size_t>(s.coll);
    auto mix = [&h](std::size_t v) { h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2); };
    mix(s.count);
    mix(s.unit);
    mix(static_cast<std::size_t>(s.root));
    mix(static_cast<std::size_t>(s.size));
    mix((s.reduction ? 1u : 0u) | (s.commutative ? 2u : 0u) | (s.intercomm ? 4u : 0u) |
        (static_cast<unsigned>(s.issue) << 3) | (s.persistent ? 1u << 8 : 0u));
    mix(s.node_segment);
    return h;
  }
};

// One candidate the model evaluated: an algorithm with parameter settings, and its time.
struct Candidate {
  const AlgorithmInfo *algo = nullptr;
  std::vector<std::pair<int, std::string>> params;  // (param_table index, value) settings
  double seconds = 0;
  std::size_t count = 0;  // the count the model evaluated it at (model_shape(): its size class)
  std::string label() const;  // "chiara chiara_batch=32"
  // The candidate as text ("algorithm index;param=value;...;count;seconds", registry indices),
  // and back: how one rank's model choice reaches the others. parse() returns false on text it
  // cannot read.
  std::string serialize() const;
  bool parse(const std::string &text);
};

// What the cost model needs besides the call: the machine description and where ranks live.
// Null members: the built-in description, consecutive blocks of shape.ranks_per_node ranks.
// `defer`: do not run the model, report that it is needed (Selection::needs_model); `given`:
// the model's choice, made elsewhere (one rank computes it for all, context.cpp).
struct ModelInputs {
  const Machine *machine = nullptr;
  const Topology *topology = nullptr;
  bool defer = false;
  const Candidate *given = nullptr;
};

struct Selection {
  const AlgorithmInfo *algo = nullptr;  // never null on success
  const AlgorithmInfo *requested = nullptr;
  std::string fallback_reason;  // why `requested` could not serve the call, if it could not
  const Rule *rule = nullptr;   // the rule `auto` followed, if any (its params apply)
  // Parameter settings `auto` chose with the algorithm (a rule's, or the model's), applied on
  // top of the configuration.
  std::vector<std::pair<int, std::string>> params;
  bool by_model = false;     // the cost model chose (model_seconds is its time)
  bool needs_model = false;  // ModelInputs::defer: the model would choose (nothing chosen yet)
  double model_seconds = 0;  // the model's time of the choice, at model_count
  std::size_t model_count = 0;  // the count the model decided at (model_shape(): the size class)
  std::string why;  // how `auto` chose (pcoll-info --select)
};

// Plans of a per-rank-layout collective (alltoallv) for the last few layouts seen with one
// decision: the layout is compared in full (4P numbers, no hash that could collide), so a loop
// that repeats its counts plans once and a call with other counts never gets a stale plan.
struct LayoutPlans {
  static constexpr std::size_t kKeep = 4;
  std::vector<std::pair<Layout, std::shared_ptr<const Plan>>> entries;  // most recent last
  std::shared_ptr<const Plan> find(const Layout &l) const;
  void store(const Layout &l, std::shared_ptr<const Plan> p);
};

// What a call of one shape resolved to. Cached per communicator and configuration (context.hpp),
// so a bulk-synchronous loop pays for selection and planning once.
struct Decision {
  const AlgorithmInfo *algo = nullptr;  // after any fallback
  Selection selection;                  // how it was chosen
  std::string fallback_reason;          // why the call goes to the vendor unasked, or empty
  // "vendor (fallback: reason)" when pcoll had to hand the call over; "ring (recursive_doubling:
  // count < P)" when the algorithm runs another's schedule (registry.hpp, Delegation).
  std::string trace_name;
  // PCOLL_FALLBACK=error and a fallback: the call fails with this code and message.
  int error = 0;
  std::string error_message;
  // Warnings to say once per process (PCOLL_FALLBACK=warn): the fallback, an algorithm's note.
  std::vector<std::string> warnings;
  std::vector<std::pair<std::string, long long>> params;  // resolved parameters
  std::shared_ptr<const Plan> plan;  // null for vendor, for count 0 and for layout collectives
  // Layout collectives: the request the plans are built from (its layout set per call), and
  // the plans by layout (shared: a cached Decision is const, its plans are not).
  PlanRequest req;
  std::shared_ptr<LayoutPlans> layout_plans;

  const char *label() const { return trace_name.empty() ? algo->name : trace_name.c_str(); }
};

// The one decision function: selection, fallback policy (PCOLL_FALLBACK), parameters and the
// plan of rank `rank`. `rules` may be null (no rules).
Decision decide(const CallShape &shape, const Config &cfg, const Rules *rules, int rank,
                const ModelInputs &model = {});

// Why none of pcoll's algorithms can serve `shape` (inter-communicator, a type issue, over
// 2 GiB); empty when they may.
std::string common_failure(const CallShape &shape);
// Why `algo` cannot serve `shape` with configuration `cfg` (empty when it can).
std::string restriction_failure(const AlgorithmInfo &algo, const CallShape &shape,
                                const Config &cfg);
// The PlanRequest for `algo` with its declared parameters resolved from `cfg`.
PlanRequest plan_request(const AlgorithmInfo &algo, const Config &cfg, int rank,
                         const CallShape &shape);
// The flat textbook model's numbers (PCOLL_MODEL_ALPHA/BETA/GAMMA): the ledger, collbench.
CostParams cost_params(const Config &cfg);
// The built-in machine description (PCOLL_MACHINE=builtin).
const Machine &builtin_machine();
// The candidates of `coll` for `shape` with their model times, fastest first (ties: registry
// order, configured parameters before tried ones): only the fastest unless `exhaustive` (every
// candidate, as pcoll-info and the reports list them; costs a full evaluation of each).
std::vector<Candidate> model_candidates(Collective coll, const Config &cfg, const CallShape &shape,
                                        const ModelInputs &model = {}, bool exhaustive = false,
                                        std::size_t *considered = nullptr);
// Size classes: the cost model decides per class of counts, not per count, so that a program
// whose counts vary pays the model (a replay of every rank's plan, tens of ms to a second at
// P = 1024..4096) a bounded number of times, as vendor libraries' tuning tables decide by size
// ranges. With k = PCOLL_MODEL_SIZE_CLASSES classes per octave, the octave [2^m, 2^(m+1)) is cut
// into k equal parts: class j holds the counts c with 2^m (1 + j/k) <= c < 2^m (1 + (j+1)/k)
// (with 4: from 1, 1.25, 1.5, 1.75 x 2^m); the model evaluates the class's first count, so a
// power of two is always evaluated at itself. Counts below 2k, and every count when k = 0, are
// classes of their own. All ranks compute the same class (integer arithmetic).
struct SizeClass {
  std::size_t first = 0;  // the count the model evaluates
  std::size_t next = 1;   // the first count of the next class
};
SizeClass size_class(std::size_t count, int per_octave);
// `shape` with its count replaced by the first count of its size class (the configuration's
// model_size_classes): the shape the model evaluates for `shape`.
CallShape model_shape(const CallShape &shape, const Config &cfg);
// Whether the candidate (chosen for some count of `shape`'s size class) can serve `shape` itself.
bool serves(const Candidate &c, const CallShape &shape, const Config &cfg);
// The cost model's choice for `shape`, the same on every rank: the fastest candidate at its size
// class's first count, if that candidate can serve `shape` itself, else the fastest at `shape`'s
// count (Candidate::count says which). Empty when no algorithm of pcoll can serve it.
std::vector<Candidate> model_choice(Collective coll, const Config &cfg, const CallShape &shape,
                                    const ModelInputs &model = {},
                                    std::size_t *considered = nullptr);
// The `auto` choice without rules: the collective's size rule, else the cost model (never vendor
// unless nothing else can serve the call).
Selection auto_choice(Collective coll, const Config &cfg, const CallShape &shape,
                      const ModelInputs &model = {});
// The message size rules are matched on: nccl-tests' size, the whole vector, in bytes.
std::size_t rule_bytes(const CallShape &shape);
// `rules` may be null (no rules).
Selection select_algorithm(const Config &cfg, const Rules *rules, const CallShape &shape,
                           const ModelInputs &model = {});
// The configuration a selection's plan is built with: `cfg` with the rule's parameters applied.
Config effective_config(const Config &cfg, const Selection &sel);

}  // namespace pcoll
