// node_aware: the leader-based all-to-all of node-aware MPIs (the node-level aggregation of
// Kumar, Mamidala and Panda, "Scaling alltoall collective on multi-core systems", IPDPS 2008;
// MPICH's multi-leader alltoall, 3.84x at 32 nodes x 40 ranks in the MPICH developers' thread
// https://github.com/pmodels/mpich/issues/3769). The
// ranks of every node are cut into alltoall_leaders groups of consecutive ranks (sizes differ by
// at most one; a node with fewer ranks has one group per rank), each led by its first rank:
//   gather:   every member sends its whole row (its P blocks) to its leader, which packs each
//             arriving row into one buffer per other group, destination by destination, sources
//             in rank order (blocks for its own group go straight into the destination columns);
//   exchange: the leaders exchange one aggregated message per pair of groups (the blocks from
//             every member of A to every member of B) and unpack what they receive into
//             destination columns (column d = the P blocks rank d receives, in source order);
//   scatter:  each leader sends every member its column.
// The inter-node messages drop from P^2 - P to G^2 - G for G = nodes x leaders groups, each
// carrying g^2 blocks (g = ranks per group); every block crosses the network once, as in
// pairwise, but passes through the leaders' memory twice. That trades bandwidth at the leaders
// for latency: it pays for small blocks at many ranks per node (the FFT transposes at scale),
// not for large ones (pairwise). A group of one rank (one rank per node, or leaders >= ranks per
// node) sends and receives its blocks directly: the plan is then the one-round linear exchange.
// Nodes are ranks_per_node consecutive ranks (MPI_COMM_TYPE_SHARED by default); without a node
// split (one node) the groups are the leaders' groups of the whole communicator.
//
// Restrictions: none (any P, any count, any node shape). Alltoallv is not offered: a leader would
// need every member's counts before it can plan the aggregated messages (a count exchange first).
// Cost (n = bytes per destination, g ranks per group, G groups), at a leader:
//   T ~ 2 (g-1)(alpha + beta P n) + (G-1) alpha + beta n g (P - g); an estimate
//   (model_exact = false): the ledger follows the largest group.
// Temporary at a leader: 2 (g-1) P n + 2 g (P - g) n bytes (rows, columns, packed and received).
#include <algorithm>
#include <string>
#include <vector>

#include "../../registry.hpp"

namespace pcoll {
namespace {

struct Group {
  int lo = 0;    // first rank (the leader)
  int size = 0;  // consecutive ranks
};

// The groups of the communicator in rank order: per node, min(leaders, ranks on the node) groups
// of consecutive ranks, the larger ones first.
std::vector<Group> groups_of(const PlanRequest &req) {
  const int P = req.size;
  const int rpn = req.ranks_per_node > 0 && req.ranks_per_node < P ? req.ranks_per_node : P;
  const long long leaders = req.param("alltoall_leaders");
  std::vector<Group> g;
  for (int node = 0; node < P; node += rpn) {
    const int m = std::min(rpn, P - node);
    const int k = static_cast<int>(std::min<long long>(leaders, m));
    const BlockSplit split{static_cast<std::size_t>(m), static_cast<std::size_t>(k)};
    for (int i = 0; i < k; ++i)
      g.push_back({node + static_cast<int>(split.offset(i)), static_cast<int>(split.length(i))});
  }
  return g;
}

Plan build(const PlanRequest &req) {
  Plan plan;
  const int gather = plan.phase_index("gather"), exchange = plan.phase_index("exchange"),
            scatter = plan.phase_index("scatter");
  const int P = req.size, me = req.rank;
  const std::size_t n = req.count, row = n * static_cast<std::size_t>(P);
  if (n == 0) return plan;
  const std::vector<Group> groups = groups_of(req);
  std::size_t mine = 0;
  while (!(groups[mine].lo <= me && me < groups[mine].lo + groups[mine].size)) ++mine;
  const Group G = groups[mine];
  auto blk = [n](std::size_t q) { return q * n; };
  // Three steps on every rank (Round::step): gather, exchange, scatter; empty where it has
  // nothing to do.
  if (me != G.lo) {  // a member: its row to the leader, its column back
    add_send(plan.new_round(gather), G.lo, in_range(0, row));
    plan.idle(exchange, 1);
    add_recv(plan.new_round(scatter), G.lo, out_range(0, row));
    return plan;
  }
  const auto g = static_cast<std::size_t>(G.size);
  if (g == 1) {  // a group of one: blocks go straight out of the input and into the output
    plan.idle(gather, 1);
    Round &x = plan.new_round(exchange);
    add_copy(x, in_range(blk(me), n), out_range(blk(me), n));
    for (std::size_t b = 0; b < groups.size(); ++b) {
      if (b == mine) continue;
      const std::size_t len = blk(groups[b].size);
      add_recv(x, groups[b].lo, out_range(blk(groups[b].lo), len));
      add_send(x, groups[b].lo, in_range(blk(groups[b].lo), len));
    }
    return plan;
  }

  // The leader. Rows of members lo+1.. at rows0, their columns at cols0; its own row is its input
  // and its own column its output. Then one packed buffer per other group, and one received one.
  const std::size_t rows0 = 0, cols0 = (g - 1) * row, pack0 = cols0 + (g - 1) * row,
                    unpack0 = pack0 + blk(g * (P - g));
  plan.tmp_elems = unpack0 + blk(g * (P - g));
  auto row_blk = [&](int s, int d) {
    return s == me ? in_range(blk(d), n) : tmp_range(rows0 + (s - me - 1) * row + blk(d), n);
  };
  auto col_blk = [&](int d, int s, std::size_t len) {
    return d == me ? out_range(blk(s), len) : tmp_range(cols0 + (d - me - 1) * row + blk(s), len);
  };
  // Where the blocks for group b start in the packed (and the received) buffers.
  std::vector<std::size_t> at(groups.size(), 0);
  for (std::size_t b = 0, off = 0; b < groups.size(); ++b) {
    if (b == mine) continue;
    at[b] = off;
    off += blk(g * static_cast<std::size_t>(groups[b].size));
  }

  // gather: each row, as it arrives, into the own group's columns and the packed buffers; the
  // leader's own row last (a copy that waits for no receive waits for all of the round's).
  Round &ga = plan.new_round(gather);
  ga.ops.reserve(g * static_cast<std::size_t>(P));
  for (int i = 1; i <= G.size; ++i) {
    const int s = me + i % G.size;
    const int rv = s == me ? -1 : add_recv(ga, s, tmp_range(rows0 + (s - me - 1) * row, row));
    for (int d = me; d < me + G.size; ++d) add_copy(ga, row_blk(s, d), col_blk(d, s, n), rv);
    for (std::size_t b = 0; b < groups.size(); ++b) {
      if (b == mine) continue;
      for (int d = groups[b].lo; d < groups[b].lo + groups[b].size; ++d)
        add_copy(ga, row_blk(s, d),
                 tmp_range(pack0 + at[b] + blk((d - groups[b].lo) * g + (s - me)), n), rv);
    }
  }
  // exchange: one message each way per other group; what arrives from group b holds, for each
  // destination d of this group, the blocks of b's sources in order: one copy per (b, d).
  {
    Round &x = plan.new_round(exchange);
    for (std::size_t b = 0; b < groups.size(); ++b) {
      if (b == mine) continue;
      const Group B = groups[b];
      const std::size_t len = blk(g * B.size), per_d = blk(B.size);
      const int rv = add_recv(x, B.lo, tmp_range(unpack0 + at[b], len));
      add_send(x, B.lo, tmp_range(pack0 + at[b], len));
      for (int d = me; d < me + G.size; ++d)
        add_copy(x, tmp_range(unpack0 + at[b] + (d - me) * per_d, per_d), col_blk(d, B.lo, per_d),
                 rv);
    }
  }
  // scatter: the members' columns.
  Round &sc = plan.new_round(scatter);
  for (int d = me + 1; d < me + G.size; ++d)
    add_send(sc, d, tmp_range(cols0 + (d - me - 1) * row, row));
  return plan;
}

double model(const PlanRequest &req, const CostParams &c) {
  const std::vector<Group> groups = groups_of(req);
  const double n = double(req.count * req.type_size), P = req.size, g = groups[0].size;
  const double G = double(groups.size());
  if (req.count == 0) return 0;
  return 2 * (g - 1) * (c.alpha + c.beta * P * n) + (G - 1) * c.alpha + c.beta * n * g * (P - g);
}

// The leader counts `auto`'s cost model tries besides the configured one: 1, 2, 4, 8 up to the
// ranks of a node.
std::vector<std::vector<std::pair<std::string, std::string>>> tunings(const PlanRequest &req) {
  const int rpn = req.ranks_per_node > 0 && req.ranks_per_node < req.size ? req.ranks_per_node
                                                                            : req.size;
  std::vector<std::vector<std::pair<std::string, std::string>>> t;
  for (int l = 1; l <= 8 && l <= rpn; l *= 2)
    if (l != req.param("alltoall_leaders")) t.push_back({{"alltoall_leaders", std::to_string(l)}});
  return t;
}

std::string explain(const PlanRequest &req) {
  const std::vector<Group> groups = groups_of(req);
  int largest = 0;
  for (const Group &g : groups) largest = std::max(largest, g.size);
  return std::to_string(groups.size()) + " groups of up to " + std::to_string(largest) +
         " ranks (" + std::to_string(groups.size() * (groups.size() - 1)) +
         " aggregated messages between leaders)";
}

}  // namespace

const AlgorithmInfo &node_aware_alltoall_info() {
  static const AlgorithmInfo info = [] {
    AlgorithmInfo a;
    a.coll = Collective::alltoall;
    a.name = "node_aware";
    a.description =
        "rows gathered to alltoall_leaders leaders per node, one aggregated message per pair of "
        "leaders, columns scattered back";
    a.source =
        "Kumar, Mamidala and Panda 2008 (Scaling alltoall collective on multi-core systems); "
        "MPICH's multi-leader alltoall (https://github.com/pmodels/mpich/issues/3769)";
    a.params = {ParamSpec::integer("alltoall_leaders", "1")
                    .range(1, 1 << 20)
                    .about("alltoall node_aware: leaders per node, each gathering the rows of an "
                           "equal share of the node's ranks (a node with fewer ranks has one "
                           "group per rank)")};
    a.build = build;
    a.model = model;
    a.explain = explain;
    a.tunings = tunings;
    a.model_exact = false;
    return a;
  }();
  return info;
}

}  // namespace pcoll
