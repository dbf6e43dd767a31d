#include "model.hpp"

#include <algorithm>
#include <cmath>
#include <map>

#include "model_parts.hpp"

namespace pcoll {

int Topology::nodes() const {
  if (node_of) {
    int n = 0;
    for (int x : *node_of) n = std::max(n, x + 1);
    return n;
  }
  return ranks_per_node > 0 ? (size + ranks_per_node - 1) / ranks_per_node : 1;
}

std::vector<int> Topology::ranks_of(int n) const {
  std::vector<int> out;
  if (!node_of && ranks_per_node > 0) {
    for (int r = n * ranks_per_node; r < std::min(size, (n + 1) * ranks_per_node); ++r)
      out.push_back(r);
    return out;
  }
  for (int r = 0; r < size; ++r)
    if (node(r) == n) out.push_back(r);
  return out;
}

int Topology::ranks_on(int n) const {
  if (!node_of && ranks_per_node > 0)
    return std::max(0, std::min(size, (n + 1) * ranks_per_node) - n * ranks_per_node);
  if (!node_of) return size;
  return static_cast<int>(std::count(node_of->begin(), node_of->end(), n));
}

CostParams flat_costs(const Machine &m) {
  CostParams c;
  c.alpha = m.inter.latency + 2 * m.inter.overhead;
  c.beta = std::isinf(m.inter.bandwidth) ? 0.0 : 1.0 / m.inter.bandwidth;
  c.gamma = std::isinf(m.reduce_bandwidth) ? 0.0 : 1.0 / m.reduce_bandwidth;
  return c;
}

using namespace model_parts;

namespace {

constexpr int kSampledNodes = 4;  // consecutive from the first, besides the middle and the last

// A torus round of one node: `to` (`from`) the bytes it sends to (receives from) each node,
// nonzero only at `peers`.
// Two estimates of the busiest link on its routes, the larger taken: its own flows alone, on
// the links they share (a node's flows to two nodes behind one neighbour); and, for the other
// nodes' flows through the same links, the hop-bytes per direction of each dimension (every
// node taken to send as this one does, shifted: exact on a whole torus for translation-invariant
// schedules, an estimate elsewhere).
double torus_time(const Torus &t, int node, const std::vector<double> &to,
                  const std::vector<double> &from, const std::vector<int> &peers) {
  std::vector<std::pair<std::size_t, double>> links;  // (link id, bytes), then summed per id
  std::vector<double> cls(t.dims.size() * 4, 0.0);    // per dim x dir x (out, in)
  auto walk = [&](int a, int b, double bytes, int io) {
    t.route(a, b, [&](int from_node, int dim, int dir) {
      links.emplace_back(t.link_id(from_node, dim, dir), bytes);
      cls[static_cast<std::size_t>(dim) * 4 + (dir > 0 ? 2 : 0) + io] += bytes;
    });
  };
  for (int peer : peers) {
    const auto n = static_cast<std::size_t>(peer);
    if (to[n] > 0) walk(node, peer, to[n], 0);
    if (from[n] > 0) walk(peer, node, from[n], 1);
  }
  std::sort(links.begin(), links.end());
  double own = 0;
  for (std::size_t i = 0; i < links.size();) {
    double sum = 0;
    std::size_t j = i;
    for (; j < links.size() && links[j].first == links[i].first; ++j) sum += links[j].second;
    own = std::max(own, sum);
    i = j;
  }
  const double spread = cls.empty() ? 0.0 : *std::max_element(cls.begin(), cls.end());
  return std::max(own, spread) * per_byte(t.link_bandwidth);
}

}  // namespace

namespace model_parts {

NodeView view_of(const AlgorithmInfo &algo, const PlanRequest &req, const Topology &topo,
                 const Machine &m, int node, bool record_flows) {
  NodeView v;
  v.ranks = topo.ranks_of(node);
  PlanRequest r = req;
  std::size_t K = 0;  // steps
  for (int rank : v.ranks) {
    r.rank = rank;
    v.plans.push_back(make_plan(algo, r));
    const Plan &p = v.plans.back();
    if (!p.rounds.empty()) K = std::max(K, step_of(p, p.rounds.size() - 1) + 1);
  }
  v.shared.assign(K, 0.0);
  const auto ts = static_cast<double>(req.type_size);
  const int nodes = topo.nodes();
  const std::size_t T = m.tiers.size();
  v.tiers.resize(T);
  // Bytes to (from) each other node this round, nonzero only at `peers` (a round touches few
  // nodes: the arrays are cleared where touched, not walked whole).
  std::vector<double> to(static_cast<std::size_t>(nodes)), from(to.size());
  std::vector<int> peers;
  std::vector<std::size_t> next(v.plans.size(), 0);  // per rank, its first round not yet counted
  for (std::size_t k = 0; k < K; ++k) {
    for (int n : peers) to[static_cast<std::size_t>(n)] = from[static_cast<std::size_t>(n)] = 0;
    peers.clear();
    double out = 0, in = 0;
    auto count = [&](const Xfer &x, std::vector<double> &pair, double &total) {
      const int peer_node = topo.node(x.peer);
      if (peer_node == node) return;
      const double b = double(x.range.len) * ts;
      const auto n = static_cast<std::size_t>(peer_node);
      if (to[n] == 0 && from[n] == 0) peers.push_back(peer_node);
      pair[n] += b;
      total += b;
    };
    for (std::size_t i = 0; i < v.plans.size(); ++i) {
      const Plan &p = v.plans[i];
      std::size_t &j = next[i];
      if (j >= p.rounds.size() || step_of(p, j) != k) continue;
      for (const Xfer &x : p.rounds[j].sends) count(x, to, out);
      for (const Xfer &x : p.rounds[j].recvs) count(x, from, in);
      ++j;
    }
    if (out == 0 && in == 0) continue;
    double s = std::max(out, in) * per_byte(m.link_bandwidth);
    if (m.torus.present() && !record_flows)
      s = std::max(s, torus_time(m.torus, node, to, from, peers));
    if (record_flows)
      for (int n : peers)
        v.flows.push_back({k, n, to[static_cast<std::size_t>(n)], from[static_cast<std::size_t>(n)]});
    double pair = 0;
    for (int n : peers)
      pair = std::max({pair, to[static_cast<std::size_t>(n)], from[static_cast<std::size_t>(n)]});
    s = std::max(s, pair * per_byte(m.pair_bandwidth));
    // Per tier, the bytes to (from) each node of another group (group_time sums them per
    // group, over the group's members).
    for (std::size_t t = 0; t < T; ++t) {
      const int g = m.tiers[t].nodes;
      for (int n : peers)
        if (n / g != node / g)
          v.tiers[t].push_back({k, n / g, to[static_cast<std::size_t>(n)],
                                from[static_cast<std::size_t>(n)]});
    }
    v.shared[k] = s;
    v.max_bytes = std::max({v.max_bytes, out, in});
  }
  return v;
}

double inter_latency(const Machine &m, int a, int b) {
  double l = m.inter.latency;
  if (m.torus.present()) l += std::max(0, m.torus.hops(a, b) - 1) * m.torus.hop_latency;
  for (const Tier &t : m.tiers)
    if (a / t.nodes != b / t.nodes) l += t.latency;
  return l;
}

RoundCost round_cost(const Round &rd, int node, double contention, const Machine &m,
                     const Topology &topo, double ts, std::vector<double> &lat_to) {
  const double g_intra = per_byte(m.intra.bandwidth), g_inter = per_byte(m.inter.bandwidth);
  const double g_rank_intra = per_byte(m.intra.rank_bandwidth);
  const double g_rank_inter = per_byte(m.inter.rank_bandwidth);
  const double g_red = per_byte(m.reduce_bandwidth), g_copy = per_byte(m.copy_bandwidth);
  double cpu = 0, s_intra = 0, r_intra = 0, s_inter = 0, r_inter = 0, lat = 0;
  double big_intra = 0, big_inter = 0;  // the largest single message of each level
  bool any_intra = false, any_inter = false;
  auto take = [&](const Xfer &x, double &intra, double &inter) {
    const int peer_node = topo.node(x.peer);
    const bool off = peer_node != node;
    const double b = double(x.range.len) * ts;
    cpu += off ? m.inter.overhead : m.intra.overhead;
    (off ? inter : intra) += b;
    double &big = off ? big_inter : big_intra;
    big = std::max(big, b);
    (off ? any_inter : any_intra) = true;
    if (off) {
      double &l = lat_to[static_cast<std::size_t>(peer_node)];
      if (l < 0) l = inter_latency(m, node, peer_node);
      lat = std::max(lat, l);
    }
  };
  for (const Xfer &x : rd.sends) take(x, s_intra, s_inter);
  for (const Xfer &x : rd.recvs) take(x, r_intra, r_inter);
  // A round's flows at one level: the largest at one flow's rate, all of them together at
  // the rate one rank moves them (equal where the rank serializes its flows).
  // The node's memory bandwidth ([shm] node_bandwidth, shared by its ranks) bounds the
  // intra-node messages as it bounds the segment's copies: a message within a node is a copy.
  const double g_share = std::isinf(m.shm.node_bandwidth)
                             ? 0.0
                             : per_byte(m.shm.node_bandwidth) * std::max(1, topo.ranks_on(node));
  double wire = 0;
  if (any_intra)
    wire = m.intra.latency + std::max({big_intra * g_intra,
                                       std::max(s_intra, r_intra) * g_rank_intra,
                                       std::max(s_intra, r_intra) * g_share});
  if (any_inter)
    wire = std::max(wire, lat + std::max({big_inter * g_inter,
                                          std::max(s_inter, r_inter) * g_rank_inter, contention}));
  // Shared-memory rounds: one flag latency for the round's waits (the lockstep plans' flags
  // arrive together), and the segment's copies at the lesser of the rank's rate and its share
  // of the node's memory bandwidth.
  if (!rd.waits.empty()) wire += m.shm.flag_latency;
  double local = 0;
  const double g_node = std::max(per_byte(m.shm.copy_bandwidth), g_share);  // via the segment
  for (const LocalOp &op : rd.ops) {
    double g = op.kind == OpKind::reduce ? g_red : g_copy;
    if (is_shared(op.src.buf) || is_shared(op.dst.buf))
      g = op.kind == OpKind::reduce ? std::max(g_red, g_node) : g_node;
    local += double(op.src.len) * ts * g;
  }
  return {cpu + wire, local};
}

}  // namespace model_parts

namespace {

// One rank's time: the sum of its rounds; `shared` (per step) the node's shared-resource time,
// or null for none. by_phase, if given, receives the time per plan phase.
double rank_time(const Plan &p, int node, const std::vector<double> *shared, const Machine &m,
                 const Topology &topo, double ts, std::vector<double> *by_phase,
                 std::vector<double> &lat_to) {
  if (by_phase) by_phase->assign(p.phases.size(), 0.0);
  double total = 0;
  for (std::size_t k = 0; k < p.rounds.size(); ++k) {
    const Round &rd = p.rounds[k];
    const std::size_t s = step_of(p, k);
    const double contention = shared && s < shared->size() ? (*shared)[s] : 0.0;
    const RoundCost c = round_cost(rd, node, contention, m, topo, ts, lat_to);
    const double t = c.transfer + c.local;
    total += t;
    if (by_phase && rd.phase >= 0 && static_cast<std::size_t>(rd.phase) < by_phase->size())
      (*by_phase)[static_cast<std::size_t>(rd.phase)] += t;
  }
  return total;
}

}  // namespace

Prediction predict(const AlgorithmInfo &algo, const PlanRequest &req, const Machine &m,
                   const Topology &topo, bool every_rank) {
  Prediction best;
  if (algo.is_vendor()) return best;
  const int nodes = topo.nodes();
  std::vector<int> which;
  if (every_rank) {
    for (int n = 0; n < nodes; ++n) which.push_back(n);
  } else {
    // The first node and the kSampledNodes - 1 after it, the middle one and the last: nodes
    // whose ranks meet the schedule's structure differently. Consecutive nodes start at
    // different offsets within the schedule's power-of-two blocks (52 ranks per node: offsets
    // 0, 4, 8, 12 mod 16, each a different way for batches of 16 to straddle nodes), which
    // evenly spaced ones can miss by aliasing; a fold's extra ranks and partial nodes are on
    // the last node.
    for (int n = 0; n < std::min(nodes, kSampledNodes); ++n) which.push_back(n);
    for (int n : {nodes / 2, nodes - 1})
      if (std::find(which.begin(), which.end(), n) == which.end()) which.push_back(n);
  }
  const auto ts = static_cast<double>(req.type_size);
  best.valid = true;
  best.seconds = -1;
  std::vector<double> lat_to;
  // Views met so far (evaluated nodes and the members of their tiers' groups), built once.
  std::map<int, NodeView> views;
  auto view = [&](int n) -> NodeView & {
    auto it = views.find(n);
    if (it == views.end()) it = views.emplace(n, view_of(algo, req, topo, m, n)).first;
    return it->second;
  };
  for (int node : which) {
    NodeView &v = view(node);
    for (std::size_t t = 0; t < m.tiers.size(); ++t) {
      const std::vector<double> g = group_time(m.tiers[t], t, node, nodes, view, v.shared.size());
      for (std::size_t k = 0; k < g.size(); ++k) v.shared[k] = std::max(v.shared[k], g[k]);
    }
    lat_to.assign(static_cast<std::size_t>(nodes), -1.0);
    best.link_bytes = std::max(best.link_bytes, v.max_bytes);
    for (std::size_t i = 0; i < v.ranks.size(); ++i) {
      const Plan &p = v.plans[i];
      std::vector<double> by_phase;
      const double total = rank_time(p, node, &v.shared, m, topo, ts, &by_phase, lat_to);
      if (total > best.seconds) {
        best.seconds = total;
        best.critical_rank = v.ranks[i];
        best.phases.clear();
        for (std::size_t ph = 0; ph < p.phases.size(); ++ph)
          best.phases.emplace_back(p.phases[ph], by_phase[ph]);
      }
    }
  }
  if (best.seconds < 0) best.seconds = 0;
  return best;
}

double lower_bound(const AlgorithmInfo &algo, const PlanRequest &req, const Machine &m,
                   const Topology &topo) {
  if (algo.is_vendor()) return 0;
  PlanRequest r = req;
  r.rank = 0;
  const Plan p = make_plan(algo, r);
  std::vector<double> lat_to(static_cast<std::size_t>(topo.nodes()), -1.0);
  return rank_time(p, topo.node(0), nullptr, m, topo, static_cast<double>(req.type_size), nullptr,
                   lat_to);
}

double node_bound(const AlgorithmInfo &algo, const PlanRequest &req, const Machine &m,
                  const Topology &topo) {
  if (algo.is_vendor()) return 0;
  const int node = topo.node(0);
  const NodeView v = view_of(algo, req, topo, m, node);
  std::vector<double> lat_to(static_cast<std::size_t>(topo.nodes()), -1.0);
  double best = 0;
  for (const Plan &p : v.plans)
    best = std::max(best, rank_time(p, node, &v.shared, m, topo,
                                    static_cast<double>(req.type_size), nullptr, lat_to));
  return best;
}

}  // namespace pcoll
