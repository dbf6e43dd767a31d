// Selection: which algorithm serves a call. Precedence: per-communicator override (C++ scoped
// override / PCOLL_Config_push) > PCOLL_<COLLECTIVE> environment variable > `auto`.
// `auto` takes, in this order: the first rule of the rules file (PCOLL_RULES, rules.hpp: measured
// choices, vendor included) whose (P, bytes) ranges hold the call and whose algorithm can serve
// it; the collective's own size rule (alltoall's pairwise threshold); the algorithm with the
// lowest closed-form alpha-beta-gamma time (PCOLL_MODEL_ALPHA/BETA/GAMMA). The choice depends
// only on values every rank agrees on (P, count, datatype size and layout, op commutativity and
// the configuration, which is checked for agreement), so all ranks choose alike.
#pragma once

#include <string>

#include "config.hpp"
#include "reduce.hpp"
#include "registry.hpp"
#include "rules.hpp"

namespace pcoll {

struct CallShape {
  Collective coll;
  int size = 1;
  std::size_t count = 0;  // allreduce: elements; reduce_scatter_block, allgather: per rank
  TypeInfo type;
  bool commutative = true;
  bool intercomm = false;
  bool needs_reduction = true;  // false for allgather: no op involved
  int ranks_per_node = 0;       // resolved node size (0: one node)
  // The send side (sendcount, sendtype) lays its data out byte for byte like the receive side
  // (count, type): the same or MPI_IN_PLACE, or a contiguous type of the same total size. Plans
  // move bytes in elements of the receive type; anything else is the vendor's.
  bool send_matches = true;
  int root = 0;  // bcast, reduce
};

struct Selection {
  const AlgorithmInfo *algo = nullptr;  // never null on success
  const AlgorithmInfo *requested = nullptr;
  std::string fallback_reason;  // why `requested` could not serve the call, if it could not
  const Rule *rule = nullptr;   // the rule `auto` followed, if any (its params apply)
  std::string why;              // how `auto` chose (pcoll-info --select)
};

// Why none of pcoll's algorithms can serve `shape` (inter-communicator, non-contiguous type,
// mismatched send side, over 2 GiB); empty when they may.
std::string common_failure(const CallShape &shape);
// Why `algo` cannot serve `shape` with configuration `cfg` (empty when it can).
std::string restriction_failure(const AlgorithmInfo &algo, const CallShape &shape,
                                const Config &cfg);
// The PlanRequest for `algo` with its declared parameters resolved from `cfg`.
PlanRequest plan_request(const AlgorithmInfo &algo, const Config &cfg, int rank,
                         const CallShape &shape);
CostParams cost_params(const Config &cfg);
// The `auto` choice without rules: the collective's size rule, else the cost model (never vendor
// unless nothing else can serve the call).
const AlgorithmInfo *auto_choice(Collective coll, const Config &cfg, const CallShape &shape);
// The message size rules are matched on: nccl-tests' size, the whole vector, in bytes.
std::size_t rule_bytes(const CallShape &shape);
// `rules` may be null (no rules).
Selection select_algorithm(const Config &cfg, const Rules *rules, const CallShape &shape);
// The configuration a selection's plan is built with: `cfg` with the rule's parameters applied.
Config effective_config(const Config &cfg, const Selection &sel);

}  // namespace pcoll
