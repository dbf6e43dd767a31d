#include "ledger.hpp"

#include <algorithm>
#include <vector>

namespace pcoll {

namespace {

// Finish times of every round under (alpha, beta, gamma); start(r, k) = finish(r, k - 1).
// count_rounds: the number of communication steps instead (a round that sends, receives or waits
// on shared-memory flags counts one).
double critical_path(const Schedule &s, std::size_t ts, const CostParams &c, bool count_rounds) {
  const int P = s.size();
  std::vector<std::vector<double>> finish(static_cast<std::size_t>(P));
  for (int r = 0; r < P; ++r) finish[r].assign(s.plans[r].rounds.size(), 0.0);
  auto start = [&](int r, int k) { return k == 0 ? 0.0 : finish[r][k - 1]; };
  double worst = 0;
  for (const auto &[r, k] : s.order) {
    const Round &rd = s.plans[r].rounds[k];
    double t = start(r, k);
    for (const auto &l : s.recv_from[r][k]) t = std::max(t, start(l.rank, l.round));
    for (const auto &l : s.send_to[r][k]) t = std::max(t, start(l.rank, l.round));
    // Shared memory: a round that waits begins once every awaited round has finished, and
    // seeing the flags costs one latency; copies into or out of the node segment are memory
    // traffic, charged at beta (local copies between a rank's own buffers are not charged).
    for (const auto &l : s.wait_on[r][k]) t = std::max(t, finish[l.rank][l.round]);
    if (!rd.waits.empty()) t += count_rounds ? 1.0 : c.alpha;
    double out = 0, in = 0, red = 0;
    for (const auto &x : rd.sends) out += c.alpha + c.beta * double(x.range.len * ts);
    for (const auto &x : rd.recvs) in += c.alpha + c.beta * double(x.range.len * ts);
    for (const auto &op : rd.ops)
      if (op.kind == OpKind::reduce)
        red += c.gamma * double(op.src.len * ts);
      else if (op.kind == OpKind::copy && (is_shared(op.src.buf) || is_shared(op.dst.buf)))
        red += c.beta * double(op.src.len * ts);
    const bool communicates = !rd.sends.empty() || !rd.recvs.empty();
    finish[r][k] = t + (count_rounds ? (communicates ? 1.0 : 0.0) : std::max(out, in) + red);
    worst = std::max(worst, finish[r][k]);
  }
  return worst;
}

}  // namespace

Ledger compute_ledger(const Schedule &s, std::size_t ts, const CostParams &cost,
                      int ranks_per_node) {
  Ledger L;
  if (!s.error.empty() || s.plans.empty()) return L;
  L.model_time = critical_path(s, ts, cost, false);
  L.messages = critical_path(s, ts, CostParams{1.0, 0.0, 0.0}, false);
  L.rounds = critical_path(s, ts, CostParams{}, true);
  std::size_t total_sent = 0;
  const int P = s.size();
  std::vector<std::size_t> sent_by(static_cast<std::size_t>(P), 0), received(sent_by.size(), 0);
  auto node = [ranks_per_node](int r) { return ranks_per_node > 0 ? r / ranks_per_node : 0; };
  for (int r = 0; r < P; ++r) {
    const Plan &p = s.plans[r];
    std::size_t sent = 0;
    for (const auto &rd : p.rounds) {
      for (const auto &x : rd.sends) {
        const std::size_t b = x.range.len * ts;
        sent += b;
        received[x.peer] += b;
        ++L.total_messages;
        if (node(x.peer) == node(r)) {
          ++L.intra_messages;
          L.intra_bytes += b;
        } else {
          ++L.inter_messages;
          L.inter_bytes += b;
        }
      }
    }
    sent_by[r] = sent;
    total_sent += sent;
    L.max_bytes_sent = std::max(L.max_bytes_sent, sent);
    L.max_temp_bytes = std::max(L.max_temp_bytes, p.tmp_elems * ts);
  }
  for (int r = 0; r < P; ++r) {
    if (sent_by[r] + received[r] > L.busiest_bytes) {
      L.busiest_bytes = sent_by[r] + received[r];
      L.busiest_rank = r;
    }
  }
  L.mean_bytes_sent = double(total_sent) / double(P);
  return L;
}

}  // namespace pcoll
