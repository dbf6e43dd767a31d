// The cost model `auto` chooses by: it reads the plans themselves, not a closed form. Every
// message of a plan knows its source and destination rank, so with the ranks-to-nodes map each
// one is charged the latency and per-byte time of its level (intra- or inter-node, from the
// machine description, machine.hpp), and each round the contention of the node's link: the
// bytes all ranks of the node push through it in that round, over the link's bandwidth.
//
// A rank's round costs
//   sum of per-message overheads (each message posted, sent or received)
//   + max( intra:  L_intra + max(bytes sent, bytes received) / B_intra,
//          inter:  L_inter + max(bytes sent / B_inter, node's bytes out / B_link,
//                                bytes received / B_inter, node's bytes in / B_link) )
//   + bytes reduced / B_reduce + bytes copied / B_intra,
// where the node's bytes out (in) are those every rank of the node sends off (receives from
// off) the node in its round of the same index: ranks of a node run their schedules in step,
// which holds for the lockstep schedules and is an estimate for the others. On a torus
// (machine.hpp's [torus]) an off-node message also pays hop_latency per hop after the first of
// its dimension-ordered route, and the node's round the busiest link on its routes (its own
// flows sharing links, and the hop-bytes per dimension and direction as if every node sent what
// this one does, shifted). A rank's time is
// the sum of its rounds; the prediction is the largest over the ranks evaluated. Which ranks:
// those of the first and of the last node (roots, fold partners and partial last nodes live
// there; the other nodes repeat them), or every rank when asked (pcoll-info, the tests).
//
// Cost at a first call: one plan per evaluated rank and candidate (one node: b_max plans), in
// O(rounds x messages) each; candidates whose latency bound already exceeds the best time found
// are skipped (model_exact algorithms only).
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "machine.hpp"
#include "registry.hpp"

namespace pcoll {

// Which node each rank is on: consecutive blocks of ranks_per_node ranks (the placement CHiArA's
// batches assume), or an explicit map where the communicator's placement is not that.
struct Topology {
  int size = 1;
  int ranks_per_node = 0;                           // 0: all ranks on one node
  std::shared_ptr<const std::vector<int>> node_of;  // explicit map (nullptr: blocks)

  int node(int r) const {
    if (node_of) return (*node_of)[static_cast<std::size_t>(r)];
    return ranks_per_node > 0 ? r / ranks_per_node : 0;
  }
  int nodes() const;
  std::vector<int> ranks_of(int node) const;
  static Topology blocks(int size, int ranks_per_node) {
    Topology t;
    t.size = size;
    t.ranks_per_node = ranks_per_node;
    return t;
  }
};

struct Prediction {
  double seconds = 0;
  int critical_rank = 0;  // the evaluated rank with the largest time
  // Seconds of that rank per plan phase, in the plan's phase order.
  std::vector<std::pair<std::string, double>> phases;
  double link_bytes = 0;  // the most bytes one node sent or received off-node in one round
  bool valid = false;
};

// The model time of `algo` for `req` (req.rank ignored) on `machine` with `topo`.
Prediction predict(const AlgorithmInfo &algo, const PlanRequest &req, const Machine &machine,
                   const Topology &topo, bool every_rank = false);
// A lower bound of predict(): rank 0's own time without any shared-link contention, from its
// plan alone (one plan instead of a node's), to skip candidates that cannot win.
double lower_bound(const AlgorithmInfo &algo, const PlanRequest &req, const Machine &machine,
                   const Topology &topo);

// The flat alpha-beta-gamma numbers the closed forms (AlgorithmInfo::model) take, from the
// machine's inter-node level: the textbook model, for the ledger and the tests.
CostParams flat_costs(const Machine &m);

}  // namespace pcoll
