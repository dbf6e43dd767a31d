// recexch_rsag: k-nomial reduce-scatter followed by a k-nomial allgather (MPICH's
// allreduce_intra_k_reduce_scatter_allgather, radix MPIR_CVAR_ALLREDUCE_RECEXCH_KVAL; Rabenseifner's
// reduce-scatter + allgather with radix k instead of 2: Thakur, Rabenseifner and Gropp,
// "Optimization of Collective Communication Operations in MPICH", IJHPCA 2005, Sec. 4.4).
//
// The group is recexch's (../patterns/radix.hpp): q ranks in mixed radices k_0..k_{m-1} <= k
// (recexch_factors=mixed, the default: q = P for any power of 2) or MPICH's q = k^m (power), the
// ranks r >= q folded onto r mod q before and after. The vector is cut by the exchange itself:
//   reduce-scatter, step s = 0..m-1 (stride d_s): the rank's current range is split into k_s
//             nearly equal contiguous parts; the rank sends part j to base + j d_s (j != its
//             digit s) and reduces the k_s - 1 copies of its own part it receives. The next
//             step splits that part. After m steps each rank below q owns one fully reduced
//             block of about n / q.
//   allgather, step s = m-1..0: the k_s ranks of step s's group send each other their parts of
//             the range they split there, received straight into place.
// Each step's messages are one contiguous range. Per rank (f: the vectors a rank folds in),
//   sent: 2 (q-1)/q n (the bandwidth bound over q ranks) + f n in the unfold;
//   steps: 2 m (m = log_k q for a power of k), of k_s - 1 peers each, against Rabenseifner's
//   2 log2 P' of one: the first step (stride 1, the largest radix and parts) stays among
//   neighbouring ranks, on one node when k_0 divides the ranks per node.
// Each element is reduced on one rank only and copied: all ranks hold identical bits.
// Fewer elements than q blocks: recexch's whole-vector exchange (steps of empty parts only add
// latency), as rabenseifner falls back to recursive doubling.
//
// Restrictions: commutative operations (the fold joins ranks out of rank order, and a part's
// k - 1 contributions are reduced as they arrive).
// Cost (c folded vectors on the busiest rank, K = sum of k_s - 1):
//   T = 2 c (alpha + beta n) + 2 K alpha + 2 (q-1)/q beta n + ((q-1)/q + c) gamma n,
//   an estimate (model_exact = false: the parts round up). Temporary:
//   max(c n, (k_0-1) ceil(n/k_0)).
#include <algorithm>
#include <string>
#include <vector>

#include "../../registry.hpp"
#include "../patterns/radix.hpp"

namespace pcoll {

const AlgorithmInfo &recexch_allreduce_info();  // the schedule it uses for small calls
namespace {

// Part j of k of the range [lo, lo + len).
Range part(std::size_t lo, std::size_t len, int j, int k) {
  const std::size_t a = len * static_cast<std::size_t>(j) / static_cast<std::size_t>(k);
  const std::size_t b = len * static_cast<std::size_t>(j + 1) / static_cast<std::size_t>(k);
  return out_range(lo + a, b - a);
}

bool whole_vectors(const PlanRequest &req, const RadixShape &s) {
  return req.count < static_cast<std::size_t>(s.q);
}

Delegation delegate(const PlanRequest &req) {
  if (whole_vectors(req, radix_shape(req)))
    return {&recexch_allreduce_info(), "count < the exchanging ranks"};
  return {};
}

Plan build(const PlanRequest &req) {
  const std::size_t n = req.count;
  const int P = req.size, me = req.rank;
  const RadixShape s = radix_shape(req);
  if (P > 1 && n > 0 && whole_vectors(req, s)) return delegate(req).to->build(req);
  Plan plan;
  const int fold_ph = plan.phase_index("fold"), rs = plan.phase_index("reduce_scatter"),
            ag = plan.phase_index("allgather"), unfold_ph = plan.phase_index("unfold");
  if (P == 1 || n == 0) return plan;
  const int k0 = s.radix.front();  // the largest radix: the largest parts, in the first step
  const std::size_t first_part =
      (n + static_cast<std::size_t>(k0) - 1) / static_cast<std::size_t>(k0);
  plan.tmp_elems = std::max(static_cast<std::size_t>(radix_max_extras(s, P)) * n,
                            static_cast<std::size_t>(k0 - 1) * first_part);
  const Range out = out_range(0, n);
  radix_fold(
      plan, s, P, me, out,
      [n](int i) { return tmp_range(static_cast<std::size_t>(i) * n, n); }, fold_ph);
  if (me >= s.q) {  // folded: wait out both halves, then receive the result
    plan.idle(rs, 2 * s.m);
    radix_unfold(plan, s, P, me, out, unfold_ph);
    return plan;
  }
  // range[t]: the range the rank splits in step t (range[m]: the block it owns).
  std::vector<Range> range(static_cast<std::size_t>(s.m) + 1, out);
  for (int t = 0; t < s.m; ++t) {
    const int k = s.radix[static_cast<std::size_t>(t)], d = s.stride[static_cast<std::size_t>(t)];
    const int digit = me / d % k, base = me - digit * d;
    const Range cur = range[static_cast<std::size_t>(t)];
    const Range mine = part(cur.off, cur.len, digit, k);
    range[static_cast<std::size_t>(t) + 1] = mine;
    Round &r = plan.new_round(rs);
    std::size_t at = 0;  // the copies of `mine` land side by side in tmp
    for (int j = 0; j < k; ++j) {
      if (j == digit) continue;
      const int peer = base + j * d;
      const Range theirs = part(cur.off, cur.len, j, k);
      if (theirs.len > 0) add_send(r, peer, theirs);
      if (mine.len == 0) continue;
      const Range into = tmp_range(at, mine.len);
      at += mine.len;
      add_reduce(r, into, mine, false, add_recv(r, peer, into));
    }
  }
  for (int t = s.m - 1; t >= 0; --t) {
    const int k = s.radix[static_cast<std::size_t>(t)], d = s.stride[static_cast<std::size_t>(t)];
    const int digit = me / d % k, base = me - digit * d;
    const Range cur = range[static_cast<std::size_t>(t)];
    const Range mine = range[static_cast<std::size_t>(t) + 1];
    Round &r = plan.new_round(ag);
    for (int j = 0; j < k; ++j) {
      if (j == digit) continue;
      const int peer = base + j * d;
      if (mine.len > 0) add_send(r, peer, mine);
      const Range theirs = part(cur.off, cur.len, j, k);
      if (theirs.len > 0) add_recv(r, peer, theirs);
    }
  }
  radix_unfold(plan, s, P, me, out, unfold_ph);
  return plan;
}

double model(const PlanRequest &req, const CostParams &c) {
  if (req.size == 1 || req.count == 0) return 0;
  const RadixShape s = radix_shape(req);
  if (whole_vectors(req, s)) return delegate(req).to->model(req, c);
  const double n = double(req.count * req.type_size), q = double(s.q);
  const double folded = double(radix_max_extras(s, req.size));
  return 2 * folded * (c.alpha + c.beta * n) + 2 * double(s.peers()) * c.alpha +
         2 * (q - 1) / q * c.beta * n + ((q - 1) / q + folded) * c.gamma * n;
}

std::string explain(const PlanRequest &req) {
  const RadixShape s = radix_shape(req);
  std::string e = "radices " + s.describe() + ": 2 x " + std::to_string(s.m) +
                  " steps over " + std::to_string(s.q) + " ranks, " +
                  std::to_string(req.size - s.q) + " folded";
  if (req.size > 1 && req.count > 0 && whole_vectors(req, s))
    e += "; fewer elements than " + std::to_string(s.q) + " blocks: recexch's whole vectors";
  return e;
}

bool bandwidth_optimal(const PlanRequest &req) {
  return !whole_vectors(req, radix_shape(req));
}

}  // namespace

const AlgorithmInfo &recexch_rsag_allreduce_info() {
  static const AlgorithmInfo info = [] {
    AlgorithmInfo a;
    a.coll = Collective::allreduce;
    a.name = "recexch_rsag";
    a.description =
        "k-nomial reduce-scatter + k-nomial allgather (radix recexch_radix): 2 log_k P steps of "
        "k-1 peers, 2 (P-1)/P n bytes per rank; mixed radices <= k (recexch_factors), folded "
        "ranks beyond the group; count < group size: recexch";
    a.source =
        "MPICH allreduce_intra_k_reduce_scatter_allgather; Thakur, Rabenseifner and Gropp 2005 "
        "(Rabenseifner's algorithm) with radix k";
    a.restrictions.needs_commutative = true;
    a.params = recexch_params();
    a.build = build;
    a.delegate = delegate;
    a.model = model;
    a.explain = explain;
    a.tunings = radix_tunings;
    a.bandwidth_optimal = bandwidth_optimal;
    a.model_exact = false;
    return a;
  }();
  return info;
}

}  // namespace pcoll
