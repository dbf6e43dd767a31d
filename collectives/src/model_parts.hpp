// The pieces the two predictions of model.hpp share (model.cpp: a rank's own rounds summed,
// replay.cpp: every rank's plan replayed against the others'): what a round costs its rank, and
// what a node's (and a tier's group's) shared resources need per step. Internal to the
// model; not installed.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <vector>

#include "machine.hpp"
#include "model.hpp"

namespace pcoll::model_parts {

inline double per_byte(double bandwidth) {
  return std::isinf(bandwidth) || bandwidth <= 0 ? 0.0 : 1.0 / bandwidth;
}

// The schedule step of rank's round k (Round::step; k in plans written by hand). A node's shared
// resources are charged per step: the messages of a step are sent and received in it on every
// rank, where a rank's k-th round can be another rank's k-th step or a later one (a tree's leaf
// receives in the broadcast's last step, its root sends in the first).
inline std::size_t step_of(const Plan &p, std::size_t k) {
  const int s = p.rounds[k].step;
  return s >= 0 ? static_cast<std::size_t>(s) : k;
}

// Bytes a node sends to (receives from) `peer` (a node, or a tier's group) in one step.
struct Traffic {
  std::size_t round;
  int peer;
  double to, from;
};

// One node's ranks, their plans and, per step, the time the node's own shared resources need
// for the step's off-node bytes (its link(s), the link to each other node, its torus
// routes), and per tier the bytes it sends to (receives from) the nodes of the tier's other
// groups, one entry per (round, peer node).
struct NodeView {
  std::vector<int> ranks;
  std::vector<Plan> plans;
  std::vector<double> shared;  // seconds, per step
  double max_bytes = 0;        // the most bytes the node moved off-node in one step
  std::vector<std::vector<Traffic>> tiers;  // per tier, in step order (peer: the group)
  // With record_flows: the node's off-node traffic per (step, peer node) in step order, and
  // shared[] without the torus estimate (the replay routes every node's flows itself).
  std::vector<Traffic> flows;
};

NodeView view_of(const AlgorithmInfo &algo, const PlanRequest &req, const Topology &topo,
                 const Machine &m, int node, bool record_flows = false);

// The latency of a message between two nodes: the inter-node latency, a torus route's hops after
// the first, and that of every tier whose groups it leaves.
double inter_latency(const Machine &m, int a, int b);

// One round's cost on its rank: `transfer`, the per-message overheads and its flows at their
// level (the largest at one flow's rate, all together at the rank's rate, `contention` -- the
// node's shared resources' time -- for off-node ones, plus the latency of the farthest peer);
// `local`, its reductions and copies. lat_to: the latency from `node` to each node, filled as
// met (-1: not yet), shared by the node's ranks.
struct RoundCost {
  double transfer = 0;
  double local = 0;
};
RoundCost round_cost(const Round &rd, int node, double contention, const Machine &m,
                     const Topology &topo, double ts, std::vector<double> &lat_to);

// The nodes of a tier's group whose traffic is summed for its links: all of them up to
// kGroupNodes, else kGroupNodes evenly spaced (the first and the last among them: a ring's or a
// fold's off-group flows start and end there), their bytes scaled to the group's size.
constexpr int kGroupNodes = 8;

// The time a tier's group needs, per step, for its traffic to the other groups: the
// bytes between it and one other group over the group pair's bandwidth, and all its bytes out
// (in) over its uplinks' bandwidth. The traffic is the group's members' own, summed (`view`
// gives a member's view), not one node's taken for every member's: a ring crosses a group's
// edge once, a recursive doubling at distance d >= the group size once per member.
template <class ViewOf>
std::vector<double> group_time(const Tier &tier, std::size_t t, int node, int nodes, ViewOf view,
                               std::size_t K) {
  const int first = node / tier.nodes * tier.nodes;
  const int members = std::min(tier.nodes, nodes - first);
  std::vector<int> chosen;
  const int n_chosen = std::min(members, kGroupNodes);
  for (int i = 0; i < n_chosen; ++i) {
    const int n = first + (n_chosen == 1 ? 0
                                         : static_cast<int>((static_cast<long long>(members - 1) * i) /
                                                            (n_chosen - 1)));
    if (chosen.empty() || chosen.back() != n) chosen.push_back(n);
  }
  const double scale = double(members) / double(chosen.size());
  std::vector<Traffic> all;
  for (int n : chosen) {
    const auto &b = view(n).tiers[t];
    all.insert(all.end(), b.begin(), b.end());
  }
  std::sort(all.begin(), all.end(), [](const Traffic &a, const Traffic &b) {
    return a.round != b.round ? a.round < b.round : a.peer < b.peer;
  });
  std::vector<double> s(K, 0.0);
  for (std::size_t i = 0; i < all.size();) {
    const std::size_t k = all[i].round;
    double one = 0, all_out = 0, all_in = 0;
    while (i < all.size() && all[i].round == k) {
      double to = 0, from = 0;
      const int g = all[i].peer;
      for (; i < all.size() && all[i].round == k && all[i].peer == g; ++i) {
        to += all[i].to;
        from += all[i].from;
      }
      one = std::max({one, to, from});
      all_out += to;
      all_in += from;
    }
    if (k < K)
      s[k] = scale * std::max(one * per_byte(tier.bandwidth),
                              std::max(all_out, all_in) * per_byte(tier.spread_bandwidth));
  }
  return s;
}

}  // namespace pcoll::model_parts
