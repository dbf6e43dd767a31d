// bruck: log-step all-to-all of Bruck, Ho, Kipnis, Upfal and Weathersby 1997 ("Efficient
// algorithms for all-to-all communications in multiport message-passing systems"), radix k =
// bruck_radix, any P; MPICH's alltoall_intra_brucks with its local rotations.
//   rotate:   work block i = input block (r + i) mod P, i.e. the block that must travel i ranks;
//   exchange: for each base-k digit position j (weight w = k^j < P) and digit value v in 1..k-1,
//             the blocks whose index has digit v at position j are packed, sent to (r + v w) mod P
//             and the same positions received from (r - v w) mod P (the k-1 messages of one
//             position go out together); after all positions block i has travelled i ranks, so
//             work block i at rank r is the block rank (r - i) mod P sent to r;
//   unrotate: output block (r - i) mod P = work block i.
// Blocks are forwarded up to log_k P times instead of once, in exchange for log_k P message
// start-ups instead of P-1: the small-message algorithm (`auto` below pairwise_threshold).
//
// Restrictions: none (any P, any count; a radix k >= P is one step of P-1 direct messages).
// Cost (n = bytes per destination, D = ceil(log_k P) digit positions, b(j, v) the blocks with
// digit v at position j among 0..P-1):
//   T = sum_j sum_{v: b(j,v) > 0} (alpha + beta n b(j, v)) = D (k-1) alpha + (P/k) D (k-1) beta n
//   for P a power of k. Temporary: P n (work) + 2 n max_j sum_v b(j, v) (pack and unpack).
#include <algorithm>
#include <vector>

#include "../../registry.hpp"

namespace pcoll {
namespace {

// The blocks i in [0, P) whose base-k digit at weight w is v.
std::vector<int> blocks_with(int P, long long w, int k, int v) {
  std::vector<int> b;
  for (int i = 0; i < P; ++i)
    if ((i / w) % k == v) b.push_back(i);
  return b;
}

int radix(const PlanRequest &req) {
  return static_cast<int>(std::min<long long>(req.param("bruck_radix"), std::max(req.size, 2)));
}

Plan build(const PlanRequest &req) {
  Plan plan;
  const int rot = plan.phase_index("rotate"), ex = plan.phase_index("exchange"),
            unrot = plan.phase_index("unrotate");
  const int P = req.size, me = req.rank, k = radix(req);
  const std::size_t n = req.count;
  if (n == 0) return plan;
  const std::size_t work = static_cast<std::size_t>(P) * n;
  auto blk = [n](long long q) { return static_cast<std::size_t>(q) * n; };
  // Rotate: two contiguous copies, input blocks [r, P) then [0, r).
  Round &r0 = plan.new_round(rot);
  add_copy(r0, in_range(blk(me), blk(P - me)), tmp_range(0, blk(P - me)));
  add_copy(r0, in_range(0, blk(me)), tmp_range(blk(P - me), blk(me)));
  std::size_t scratch = 0;  // pack + unpack elements needed by the largest step
  for (long long w = 1; w < P; w *= k) {
    std::vector<std::vector<int>> sets;
    std::size_t total = 0;
    for (int v = 1; v < k; ++v) {
      sets.push_back(blocks_with(P, w, k, v));
      total += sets.back().size();
    }
    if (total == 0) continue;
    scratch = std::max(scratch, 2 * total * n);
    const std::size_t pack0 = work, unpack0 = work + total * n;
    // Pack in a round of its own: the executor posts a round's sends before its local operations.
    Round &pk = plan.new_round(ex);
    std::size_t at = 0;
    for (const std::vector<int> &b : sets)
      for (int i : b) {
        add_copy(pk, tmp_range(blk(i), n), tmp_range(pack0 + at, n));
        at += n;
      }
    Round &xr = plan.new_round(ex);
    at = 0;
    for (int v = 1; v < k; ++v) {
      const std::vector<int> &b = sets[static_cast<std::size_t>(v - 1)];
      if (b.empty()) continue;
      const std::size_t len = b.size() * n;
      const int to = static_cast<int>((me + v * w) % P);
      const int from = static_cast<int>(((me - v * w) % P + P) % P);
      add_send(xr, to, tmp_range(pack0 + at, len));
      const int rv = add_recv(xr, from, tmp_range(unpack0 + at, len));
      for (std::size_t t = 0; t < b.size(); ++t)
        add_copy(xr, tmp_range(unpack0 + at + t * n, n), tmp_range(blk(b[t]), n), rv);
      at += len;
    }
  }
  // Unrotate: output block (r - i) mod P = work block i.
  Round &u = plan.new_round(unrot);
  for (int i = 0; i < P; ++i)
    add_copy(u, tmp_range(blk(i), n), out_range(blk((me - i + P) % P), n));
  plan.tmp_elems = work + scratch;
  return plan;
}

double model(const PlanRequest &req, const CostParams &c) {
  const int P = req.size, k = radix(req);
  const double n = double(req.count * req.type_size);
  double t = 0;
  for (long long w = 1; w < P; w *= k)
    for (int v = 1; v < k; ++v) {
      // Blocks i < P with digit v at weight w: full periods of k w, then the partial one.
      const long long full = P / (k * w), rest = P % (k * w);
      const long long b = full * w + std::min(w, std::max(0LL, rest - v * w));
      if (b > 0) t += c.alpha + c.beta * n * double(b);
    }
  return t;
}

std::string explain(const PlanRequest &req) {
  return "radix " + std::to_string(radix(req));
}

}  // namespace

const AlgorithmInfo &bruck_alltoall_info() {
  static const AlgorithmInfo info = [] {
    AlgorithmInfo a;
    a.coll = Collective::alltoall;
    a.name = "bruck";
    a.description =
        "log-step Bruck exchange, radix bruck_radix, with MPICH's local rotations; any P";
    a.source =
        "Bruck, Ho, Kipnis, Upfal and Weathersby 1997 (Efficient algorithms for all-to-all "
        "communications in multiport message-passing systems); MPICH alltoall_intra_brucks";
    a.params = {
        ParamSpec::integer("bruck_radix", "2")
            .range(2, 1 << 20)
            .about("alltoall bruck: radix k of the log-step exchange (ceil(log_k P) steps of up to "
                   "k-1 messages each); k >= P is one step of P-1 direct messages")};
    a.build = build;
    a.model = model;
    a.explain = explain;
    // Not a cost-model candidate (across nodes): node_aware was faster in every cell simulated at
    // P = 256 on the three platform descriptions (8 B - 4 KiB per destination), the model is 20-26%
    // off for it, and its plans (P/2 block copies per step on every rank) make it the slowest
    // candidate to evaluate: 8 s of a first call's decision at P = 2048.
    a.auto_candidate = false;
    return a;
  }();
  return info;
}

}  // namespace pcoll
