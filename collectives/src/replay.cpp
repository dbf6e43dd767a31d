// The replay: every rank's plan run against the others', so that a round waits for the rounds
// its messages come from. predict() (model.cpp) charges each rank the sum of its own rounds; a
// round that must wait for a sender still busy with a slower round of its own is not charged
// there, and schedules whose slow exchanges fall on different ranks at different steps (Swing's
// distances across node boundaries, a tree's levels, CHiArA's lane roots) add those waits up
// along chains of messages. Two passes:
//
// 1. Lockstep contention. Every rank's round costs what predict() charges it (model_parts.hpp:
//    its messages at their level, the node's shared resources for that round's step), and the
//    replay orders them: a rank begins a round when it ended the one before; a message starts
//    when its receiver and its sender have both begun their rounds; a round's transfers end
//    when its last message is through, and not before all of them together have had the
//    round's cost from the earliest start; its local operations follow. Sends never wait for
//    their receiver (eager): a late receiver delays the receive, not the sender's next round.
//    On a torus the shared cost of a step is that of the busiest link on the node's routes,
//    every node's flows of that step routed together (exact, not the per-node
//    estimate of the sampled prediction).
// 2. On a torus, time-aware links. Ranks that finish a round early start the next one, so the
//    off-node messages of different round indices meet on the same links (Swing at 48 ranks per
//    node: a step's few slow crossings overlap the next steps' crossings). From the first
//    pass's intervals, each link's bytes are spread over the time each message was in flight;
//    a message needs at least what its busiest link carries during its own interval, over the
//    link's bandwidth. The replay is run again with those times (and the first pass's costs).
//
// Cost: every rank's plan (P plan builds) and O(messages log messages). `replay_affordable`
// says whether a candidate's plans stay within kReplayMessages; the search (select.cpp)
// replays only the candidates the sampled prediction, a lower bound of the replay, leaves in
// the race.
#include <algorithm>
#include <cstddef>
#include <vector>

#include "model.hpp"
#include "model_parts.hpp"

namespace pcoll {

using namespace model_parts;

namespace {

constexpr std::size_t kReplayMessages = std::size_t{1} << 19;

std::size_t U(int x) {
  return static_cast<std::size_t>(x);
}

// The latency between two nodes (inter_latency walks torus routes and tiers), filled as met.
class Latencies {
 public:
  Latencies(const Machine &m, int nodes)
      : m_(m), nodes_(nodes), lat_(static_cast<std::size_t>(nodes) * static_cast<std::size_t>(nodes), -1.0) {}
  double operator()(int a, int b) {
    double &l = lat_[U(a) * U(nodes_) + U(b)];
    if (l < 0) l = a == b ? m_.intra.latency : inter_latency(m_, a, b);
    return l;
  }

 private:
  const Machine &m_;
  int nodes_;
  std::vector<double> lat_;
};

// One message: from `src` (its round src_round) to `dst` (its round dst_round).
struct Msg {
  int src, dst, src_round, dst_round;
  double bytes;
  double alone;      // its latency and its bytes at one flow's rate
  double a = 0, e = 0;  // in flight from a to e (the first pass)
};

// Every receive matched with its send in MPI's order per pair of ranks: the sends and the
// receives each sorted by (source, destination, posting order), then paired in that order.
std::vector<Msg> match(const std::vector<const Plan *> &plan, const std::vector<int> &node_of,
                       const Machine &m, double ts, Latencies &lat) {
  struct Ref {
    int src, dst, round, seq;  // seq: posting order on its rank
    std::size_t len;
    bool operator<(const Ref &o) const {
      return src != o.src ? src < o.src : dst != o.dst ? dst < o.dst : seq < o.seq;
    }
  };
  std::vector<Ref> sends, recvs;
  for (std::size_t r = 0; r < plan.size(); ++r) {
    const Plan &p = *plan[r];
    int seq_s = 0, seq_r = 0;
    for (std::size_t k = 0; k < p.rounds.size(); ++k) {
      for (const Xfer &x : p.rounds[k].sends)
        sends.push_back({static_cast<int>(r), x.peer, static_cast<int>(k), seq_s++, x.range.len});
      for (const Xfer &x : p.rounds[k].recvs)
        recvs.push_back({x.peer, static_cast<int>(r), static_cast<int>(k), seq_r++, x.range.len});
    }
  }
  std::sort(sends.begin(), sends.end());
  std::sort(recvs.begin(), recvs.end());
  std::vector<Msg> msgs;
  msgs.reserve(recvs.size());
  auto pair_less = [](const Ref &a, const Ref &b) {
    return a.src != b.src ? a.src < b.src : a.dst < b.dst;
  };
  for (std::size_t i = 0, j = 0; i < sends.size() && j < recvs.size();) {
    if (pair_less(sends[i], recvs[j])) {
      ++i;  // unmatched (not a verified plan)
    } else if (pair_less(recvs[j], sends[i])) {
      ++j;
    } else {
      const Ref &sd = sends[i++], &rv = recvs[j++];
      const int ns = node_of[U(sd.src)], nr = node_of[U(rv.dst)];
      const double bytes = double(rv.len) * ts;
      const double alone =
          lat(ns, nr) + bytes * per_byte(ns == nr ? m.intra.bandwidth : m.inter.bandwidth);
      msgs.push_back({sd.src, rv.dst, sd.round, rv.round, bytes, alone});
    }
  }
  return msgs;
}

// Per torus link, the bytes of the messages crossing it spread evenly over their intervals:
// each message's time is at least the load its busiest link carries during its interval
// (R(e) - R(a), R the integral of the link's rate), over the link's bandwidth, plus its latency.
std::vector<double> link_times(const std::vector<Msg> &msgs, const std::vector<int> &node_of,
                               const Machine &m, Latencies &lat) {
  const Torus &t = m.torus;
  std::vector<std::vector<int>> on(t.link_count());
  for (std::size_t i = 0; i < msgs.size(); ++i) {
    const int a = node_of[U(msgs[i].src)], b = node_of[U(msgs[i].dst)];
    if (a != b)
      t.route(a, b, [&](int from, int dim, int dir) {
        on[t.link_id(from, dim, dir)].push_back(static_cast<int>(i));
      });
  }
  const double g = per_byte(t.link_bandwidth);
  std::vector<double> out(msgs.size(), 0.0);
  std::vector<std::pair<double, double>> ev;  // (time, change of the rate)
  std::vector<double> at, integral;
  for (const auto &l : on) {
    if (l.empty()) continue;
    ev.clear();
    for (int i : l) {
      const Msg &x = msgs[U(i)];
      const double len = std::max(x.e - x.a, 1e-15);
      ev.emplace_back(x.a, x.bytes / len);
      ev.emplace_back(x.a + len, -x.bytes / len);
    }
    std::sort(ev.begin(), ev.end());
    at.clear();
    integral.clear();
    double rate = 0, acc = 0, now = ev.front().first;
    for (const auto &[time, change] : ev) {
      acc += rate * (time - now);
      now = time;
      rate += change;
      if (!at.empty() && at.back() == time) {
        integral.back() = acc;
      } else {
        at.push_back(time);
        integral.push_back(acc);
      }
    }
    auto R = [&](double x) {
      const auto it = std::upper_bound(at.begin(), at.end(), x);
      if (it == at.begin()) return 0.0;
      const auto j = static_cast<std::size_t>(it - at.begin()) - 1;
      if (j + 1 >= at.size()) return integral[j];
      return integral[j] + (integral[j + 1] - integral[j]) * (x - at[j]) / (at[j + 1] - at[j]);
    };
    for (int i : l) {
      const Msg &x = msgs[U(i)];
      const double load = std::max(x.bytes, R(std::max(x.e, x.a + 1e-15)) - R(x.a));
      out[U(i)] = std::max(out[U(i)], lat(node_of[U(x.src)], node_of[U(x.dst)]) + load * g);
    }
  }
  return out;
}

}  // namespace

bool replay_affordable(const Plan &rank0, int P) {
  std::size_t msgs = 0;
  for (const Round &r : rank0.rounds) msgs += r.recvs.size();
  return msgs * static_cast<std::size_t>(P) <= kReplayMessages;
}

Prediction replay(const AlgorithmInfo &algo, const PlanRequest &req, const Machine &m,
                  const Topology &topo) {
  Prediction out;
  if (algo.is_vendor()) return out;
  const int P = req.size, nodes = topo.nodes();
  const auto ts = static_cast<double>(req.type_size);
  const bool torus = m.torus.present();
  // Every node's view: its ranks' plans and its shared resources per step.
  std::vector<NodeView> views;
  views.reserve(U(nodes));
  for (int n = 0; n < nodes; ++n) views.push_back(view_of(algo, req, topo, m, n, torus));
  // Tiers: a group's time is the same for each of its nodes, computed once per group.
  for (std::size_t t = 0; t < m.tiers.size(); ++t) {
    const int g = m.tiers[t].nodes;
    for (int first = 0; first < nodes; first += g) {
      const int last = std::min(nodes, first + g);
      std::size_t K = 0;
      for (int n = first; n < last; ++n) K = std::max(K, views[U(n)].shared.size());
      const std::vector<double> s = group_time(
          m.tiers[t], t, first, nodes, [&](int n) -> const NodeView & { return views[U(n)]; }, K);
      for (int n = first; n < last; ++n) {
        auto &sh = views[U(n)].shared;
        for (std::size_t k = 0; k < sh.size() && k < s.size(); ++k) sh[k] = std::max(sh[k], s[k]);
      }
    }
  }
  // Torus: every node's flows of a step routed together, once as the senders' step has them and
  // once as the receivers' (the same step in the builders' plans, where a message is sent and
  // received in one step; not necessarily in plans written by hand); a node's step pays the
  // busiest link on its routes in either.
  if (torus) {
    const Torus &t = m.torus;
    std::vector<double> by_send(t.link_count(), 0.0), by_recv(by_send.size(), 0.0);
    std::vector<std::size_t> cur(U(nodes), 0), touched;
    std::size_t K = 0;
    for (const NodeView &v : views) K = std::max(K, v.shared.size());
    const double g = per_byte(t.link_bandwidth);
    for (std::size_t k = 0; k < K; ++k) {
      for (std::size_t x : touched) by_send[x] = by_recv[x] = 0;
      touched.clear();
      auto add = [&](std::vector<double> &load, int a, int b, double bytes) {
        t.route(a, b, [&](int from, int dim, int dir) {
          const std::size_t x = t.link_id(from, dim, dir);
          touched.push_back(x);
          load[x] += bytes;
        });
      };
      for (int n = 0; n < nodes; ++n) {
        const auto &f = views[U(n)].flows;
        for (std::size_t i = cur[U(n)]; i < f.size() && f[i].round == k; ++i) {
          if (f[i].to > 0) add(by_send, n, f[i].peer, f[i].to);
          if (f[i].from > 0) add(by_recv, f[i].peer, n, f[i].from);
        }
      }
      for (int n = 0; n < nodes; ++n) {
        auto &v = views[U(n)];
        std::size_t &i = cur[U(n)];
        double busiest = 0;
        auto see = [&](int a, int dim, int dir) {
          const std::size_t x = t.link_id(a, dim, dir);
          busiest = std::max({busiest, by_send[x], by_recv[x]});
        };
        for (; i < v.flows.size() && v.flows[i].round == k; ++i) {
          if (v.flows[i].to > 0) t.route(n, v.flows[i].peer, see);
          if (v.flows[i].from > 0) t.route(v.flows[i].peer, n, see);
        }
        if (k < v.shared.size()) v.shared[k] = std::max(v.shared[k], busiest * g);
      }
    }
  }
  std::vector<const Plan *> plan(U(P), nullptr);
  std::vector<int> node_of(U(P), 0);
  for (int n = 0; n < nodes; ++n) {
    const NodeView &v = views[U(n)];
    out.link_bytes = std::max(out.link_bytes, v.max_bytes);
    for (std::size_t i = 0; i < v.ranks.size(); ++i) {
      plan[U(v.ranks[i])] = &v.plans[i];
      node_of[U(v.ranks[i])] = n;
    }
  }
  // Each round's own cost on its rank.
  std::vector<std::vector<RoundCost>> cost(U(P));
  {
    std::vector<double> lat_to;
    for (int n = 0; n < nodes; ++n) {
      const NodeView &v = views[U(n)];
      lat_to.assign(U(nodes), -1.0);
      for (std::size_t i = 0; i < v.ranks.size(); ++i) {
        const Plan &p = v.plans[i];
        auto &c = cost[U(v.ranks[i])];
        c.resize(p.rounds.size());
        for (std::size_t k = 0; k < p.rounds.size(); ++k) {
          const std::size_t s = step_of(p, k);
          c[k] = round_cost(p.rounds[k], n, s < v.shared.size() ? v.shared[s] : 0.0, m, topo, ts,
                            lat_to);
        }
      }
    }
  }
  Latencies lat(m, nodes);
  std::vector<Msg> msgs = match(plan, node_of, m, ts, lat);
  // Rounds numbered across ranks (rank r's round k is base[r] + k), and per round the messages
  // it receives: in_msg[in_first[x] .. in_first[x + 1]).
  std::vector<std::size_t> base(U(P) + 1, 0);
  for (int r = 0; r < P; ++r) base[U(r) + 1] = base[U(r)] + plan[U(r)]->rounds.size();
  std::vector<std::size_t> in_first(base[U(P)] + 1, 0);
  for (const Msg &x : msgs) ++in_first[base[U(x.dst)] + U(x.dst_round) + 1];
  for (std::size_t x = 1; x < in_first.size(); ++x) in_first[x] += in_first[x - 1];
  std::vector<int> in_msg(msgs.size());
  {
    std::vector<std::size_t> fill(in_first.begin(), in_first.end() - 1);
    for (std::size_t i = 0; i < msgs.size(); ++i)
      in_msg[fill[base[U(msgs[i].dst)] + U(msgs[i].dst_round)]++] = static_cast<int>(i);
  }
  std::vector<double> ended(base[U(P)], 0.0);
  // `times`: each message's own time when larger than alone (the second pass), or null.
  auto run = [&](const std::vector<double> *times) {
    std::vector<int> next(U(P), 0);
    // Ranks waiting for rank q to begin a round: (rank, that round).
    std::vector<std::vector<std::pair<int, int>>> waiting(U(P));
    auto begun = [&](int q, int k) { return k == 0 ? 0.0 : ended[base[U(q)] + U(k) - 1]; };
    std::vector<int> work;
    for (int r = P - 1; r >= 0; --r) work.push_back(r);
    while (!work.empty()) {
      const int r = work.back();
      work.pop_back();
      const Plan &p = *plan[U(r)];
      const int K = static_cast<int>(p.rounds.size());
      const int from = next[U(r)];
      while (next[U(r)] < K) {
        const int k = next[U(r)];
        const std::size_t x = base[U(r)] + U(k);
        const int *in = in_msg.data() + in_first[x];
        const int *in_end = in_msg.data() + in_first[x + 1];
        // A message can start once its sender has begun the round it is sent in.
        const int *late = std::find_if(in, in_end, [&](int i) {
          return next[U(msgs[U(i)].src)] < msgs[U(i)].src_round;
        });
        if (late != in_end) {
          waiting[U(msgs[U(*late)].src)].emplace_back(r, msgs[U(*late)].src_round);
          break;
        }
        const double own = begun(r, k);
        // The sends (and a round without receives) start at once.
        const Round &rd = p.rounds[U(k)];
        const auto n_in = static_cast<std::size_t>(in_end - in);
        double first = n_in < rd.sends.size() + rd.recvs.size() ? own : -1.0, last = own;
        for (const int *i = in; i != in_end; ++i) {
          Msg &m_i = msgs[U(*i)];
          m_i.a = std::max(own, begun(m_i.src, m_i.src_round));
          first = first < 0 ? m_i.a : std::min(first, m_i.a);
          last = std::max(last, m_i.a + (times ? std::max(m_i.alone, (*times)[U(*i)]) : m_i.alone));
        }
        if (first < 0) first = own;
        const RoundCost &c = cost[U(r)][U(k)];
        const double wire = std::max(first + c.transfer, last);
        for (const int *i = in; i != in_end; ++i) msgs[U(*i)].e = wire;
        ended[x] = wire + c.local;
        ++next[U(r)];
      }
      if (next[U(r)] > from) {
        auto &w = waiting[U(r)];
        std::size_t kept = 0;
        for (const auto &[q, k] : w)
          if (k <= next[U(r)]) work.push_back(q);
          else w[kept++] = {q, k};
        w.resize(kept);
      }
    }
    for (int r = 0; r < P; ++r)
      if (next[U(r)] < static_cast<int>(plan[U(r)]->rounds.size())) return false;
    return true;
  };
  out.valid = run(nullptr);
  if (out.valid && torus) {
    const std::vector<double> times = link_times(msgs, node_of, m, lat);
    out.valid = run(&times);
  }
  if (!out.valid) return out;  // a plan that cannot complete: not a verified one
  for (int r = 0; r < P; ++r)
    if (base[U(r) + 1] > base[U(r)] && ended[base[U(r) + 1] - 1] > out.seconds) {
      out.seconds = ended[base[U(r) + 1] - 1];
      out.critical_rank = r;
    }
  // The critical rank's time per phase: from the end of its previous round to the end of this.
  const Plan &p = *plan[U(out.critical_rank)];
  std::vector<double> by_phase(p.phases.size(), 0.0);
  double prev = 0;
  for (std::size_t k = 0; k < p.rounds.size(); ++k) {
    const double e = ended[base[U(out.critical_rank)] + k];
    const int ph = p.rounds[k].phase;
    if (ph >= 0 && U(ph) < by_phase.size()) by_phase[U(ph)] += e - prev;
    prev = e;
  }
  for (std::size_t ph = 0; ph < p.phases.size(); ++ph)
    out.phases.emplace_back(p.phases[ph], by_phase[ph]);
  return out;
}

}  // namespace pcoll
