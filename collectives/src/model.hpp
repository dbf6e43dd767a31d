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
//   + (shared-memory rounds) flag latency if the round waits for flags, and its copies and
//     reductions through the node segment at min(shm copy bandwidth, node memory bandwidth /
//     the node's ranks) (machine.hpp's [shm]); the intra-node term above is also at least
//     max(bytes sent, bytes received) at that share of the node's memory bandwidth,
// where the node's bytes out (in) are those every rank of the node sends off (receives from
// off) the node in its round of the same index: ranks of a node run their schedules in step,
// which holds for the lockstep schedules and is an estimate for the others. On a torus
// (machine.hpp's [torus]) an off-node message also pays hop_latency per hop after the first of
// its dimension-ordered route, and the node's round the busiest link on its routes (its own
// flows sharing links, and the hop-bytes per dimension and direction as if every node sent what
// this one does, shifted). With tiers (groups of consecutive nodes: a switch, a router, a
// dragonfly group) the round also pays the busier of the group's bytes to one other group over
// the pair's bandwidth and all its off-group bytes over its uplinks': the bytes of the group's
// members, summed from their own plans (up to 8 members; in bigger groups 8 of them spread,
// the first and the last among them, scaled to the group), since a ring crosses a group's
// edge once where a long-distance exchange leaves it from every member. A rank's time is the
// sum of its rounds; the prediction is the largest over the ranks evaluated. Which ranks:
// those of the first 4 nodes, the middle one and the last (consecutive nodes start at
// different offsets of the schedules' power-of-two blocks, so batches straddle them
// differently; fold partners and partial nodes are on the last), or every rank when asked
// (pcoll-info, the tests).
//
// That is predict(). It cannot see a round that waits for a sender still busy with a slower
// round of its own: the replay (replay.cpp) runs every rank's plan against the others' and
// charges those waits along chains of messages across ranks (and, on a torus, the links that
// off-node messages of different round indices share once ranks drift apart in time). `auto`
// takes the replay's time where a candidate's plans stay within its budget, the sample's
// beyond it (ring and the many-stage CHiArA variants at P >= 1024, whose rounds mostly pace
// themselves).
//
// Cost at a first call: one plan per rank of each evaluated node and group member, per
// candidate still in the race, in O(rounds x messages) each; P plans for a replay. The
// candidates are searched best first over bounds: rank 0's plan alone, rank 0's node with its
// own link's contention, the sample, then the replay; one is evaluated further only while its
// bound could still beat the best time found. P = 4096 on this project's machine files (every
// candidate, 2-core VM): 0.3-1.7 s (docs/simulation.md has the table).
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
  int ranks_on(int node) const;  // ranks_of(node).size()
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

// A tighter lower bound: the time of rank 0's node's ranks with that node's own link, pair and
// torus contention but not its tiers' groups (predict() evaluates that node too and charges its
// rounds at least as much), from that node's plans alone.
double node_bound(const AlgorithmInfo &algo, const PlanRequest &req, const Machine &machine,
                  const Topology &topo);

// The replay (replay.cpp): every rank's plan run against the others', each round waiting for
// the rounds its messages come from, so that waits along chains of messages across ranks are
// charged; on a torus, a second pass charges each message the load its links carry while it
// is in flight (off-node messages of different round indices overlap once ranks drift apart).
// At least predict()'s every-rank time (a round never ends before its own cost has passed), so
// predict() over the sample bounds it from below in the search. Costs every rank's plan.
Prediction replay(const AlgorithmInfo &algo, const PlanRequest &req, const Machine &machine,
                  const Topology &topo);
// Whether a replay of the plans of which `rank0` is rank 0's stays within the model's budget
// (2^19 messages over all ranks, about half a second here: the log-round schedules at
// P = 4096, not ring at P = 1024 or CHiArA's many-stage variants at P = 4096).
bool replay_affordable(const Plan &rank0, int P);

// The flat alpha-beta-gamma numbers the closed forms (AlgorithmInfo::model) take, from the
// machine's inter-node level: the textbook model, for the ledger and the tests.
CostParams flat_costs(const Machine &m);

}  // namespace pcoll
