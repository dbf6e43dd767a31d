// recexch: k-nomial recursive exchange of the whole vector (MPICH's allreduce_intra_recexch with
// its latency-optimal "whole vector" exchange, MPIR_CVAR_ALLREDUCE_RECEXCH_KVAL; Thakur,
// Rabenseifner and Gropp's recursive doubling with radix k instead of 2). MPICH suggests a
// radix near the NICs or the ranks of a node.
//
// The group is ../patterns/radix.hpp's: q <= P ranks in mixed radices k_0..k_{m-1} <= k =
// recexch_radix (recexch_factors=mixed, the default), or MPICH's q = k^m (power):
//   fold:     rank r >= q sends its vector to r mod q, which reduces what it receives, in rank
//             order (mixed: at most one vector; power: at most k-1, P < k q);
//   exchange: in step s = 0..m-1, with stride d_s, the k_s ranks base + j d_s (j = 0..k_s-1, base
//             the rank with its digit s cleared) send each other their whole partial results and
//             each reduces all k_s in the order j = 0..k_s-1 (the same expression on every member,
//             so all ranks end with the same bits); after m steps every rank below q holds the
//             result;
//   unfold:   rank j < q sends it to the ranks r >= q with r mod q = j.
// log_k P steps of k-1 messages each, against recursive doubling's log2 P steps of one: fewer
// dependent steps for more messages in flight per step (on a node link shared by the ranks of a
// node, or several NICs).
//
// Restrictions: commutative operations (the folded ranks join out of rank order). The radix is
// capped at P.
// Cost (c = ceil((P - q) / q) folded vectors at rank 0, K = sum of k_s - 1): T ~ 2c (alpha +
//   beta n) + K (alpha + beta n) + (c + K) gamma n, plus a copy of n per step on the ranks whose
//   digit is not 0; an estimate (model_exact = false). Temporary: max(k_0, c) n bytes.
#include <algorithm>
#include <string>
#include <vector>

#include "../../registry.hpp"
#include "../patterns/radix.hpp"

namespace pcoll {
namespace {

Plan build(const PlanRequest &req) {
  Plan plan;
  const int fold_ph = plan.phase_index("fold"), xch = plan.phase_index("exchange"),
            unfold_ph = plan.phase_index("unfold");
  const std::size_t n = req.count;
  const int P = req.size, me = req.rank;
  if (P == 1 || n == 0) return plan;
  const RadixShape s = radix_shape(req);
  plan.tmp_elems =
      static_cast<std::size_t>(std::max(s.radix.front(), radix_max_extras(s, P))) * n;
  auto slot = [n](int j) { return tmp_range(static_cast<std::size_t>(j) * n, n); };
  const Range out = out_range(0, n);

  // Every rank has the fold's and the unfold's step when there are extras, empty where it
  // takes no part (Round::step).
  radix_fold(plan, s, P, me, out, slot, fold_ph);
  if (me >= s.q) {  // folded: wait out the exchange, then receive the result
    plan.idle(xch, s.m);
    radix_unfold(plan, s, P, me, out, unfold_ph);
    return plan;
  }
  // exchange: m steps of k_s - 1 peers.
  for (int step = 0; step < s.m; ++step) {
    const int k = s.radix[static_cast<std::size_t>(step)],
              d = s.stride[static_cast<std::size_t>(step)];
    const int digit = me / d % k, base = me - digit * d;
    Round &r = plan.new_round(xch);
    std::vector<int> recv_of(static_cast<std::size_t>(k), -1);
    for (int j = 0; j < k; ++j) {
      if (j == digit) continue;
      recv_of[static_cast<std::size_t>(j)] = add_recv(r, base + j * d, slot(j));
      add_send(r, base + j * d, out);
    }
    // acc = v_0, then acc (+) v_j for j = 1..k-1, the accumulator always on the left. Rank j = 0
    // accumulates in out, each v_j as it arrives. The others accumulate in slot 0 (v_0 as
    // received) once every vector is there (an op that names no receive waits for all), and copy
    // it to out at the end (after the sends of out).
    if (digit == 0) {
      for (int j = 1; j < k; ++j)
        add_reduce(r, slot(j), out, false, recv_of[static_cast<std::size_t>(j)]);
    } else {
      for (int j = 1; j < k; ++j) add_reduce(r, j == digit ? out : slot(j), slot(0), false);
      add_copy(r, slot(0), out);
    }
  }
  // unfold: the result to the extras.
  radix_unfold(plan, s, P, me, out, unfold_ph);
  return plan;
}

double model(const PlanRequest &req, const CostParams &c) {
  if (req.size == 1 || req.count == 0) return 0;
  const RadixShape s = radix_shape(req);
  const double n = double(req.count * req.type_size);
  const double folded = double(radix_max_extras(s, req.size));
  const double msgs = 2 * folded + double(s.peers());
  return msgs * (c.alpha + c.beta * n) + (folded + double(s.peers())) * c.gamma * n;
}

std::string explain(const PlanRequest &req) {
  const RadixShape s = radix_shape(req);
  return "radices " + s.describe() + ": " + std::to_string(s.m) + " steps over " +
         std::to_string(s.q) + " ranks, " + std::to_string(req.size - s.q) + " folded";
}

}  // namespace

const AlgorithmInfo &recexch_allreduce_info() {
  static const AlgorithmInfo info = [] {
    AlgorithmInfo a;
    a.coll = Collective::allreduce;
    a.name = "recexch";
    a.description =
        "k-nomial recursive exchange of the whole vector: log_k P steps of k-1 peers (radix "
        "recexch_radix; mixed radices <= k, recexch_factors); folded ranks beyond the group";
    a.source =
        "MPICH allreduce_intra_recexch; Thakur, Rabenseifner and Gropp 2005 (recursive doubling)";
    a.restrictions.needs_commutative = true;
    a.params = recexch_params();
    a.build = build;
    a.model = model;
    a.explain = explain;
    a.tunings = radix_tunings;
    a.model_exact = false;
    return a;
  }();
  return info;
}

}  // namespace pcoll
