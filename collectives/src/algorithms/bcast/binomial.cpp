// binomial: broadcast down a binomial tree (MPICH's MPIR_Bcast_intra_binomial; Thakur,
// Rabenseifner and Gropp 2005, Sec. 3.1). On virtual ranks v = (r - root) mod P the parent of v
// is v minus its lowest set bit; v then sends to v + m for m = lowbit/2, ..., 1 (the root: from
// the largest power of two below P down), the largest subtree first, one message per round.
//
// Restrictions: none (any P, any root).
// Cost: ceil(log2 P) (alpha + beta n) on the root's path. Temporary: none.
#include <cmath>

#include "../../registry.hpp"

namespace pcoll {
namespace {

Plan build(const PlanRequest &req) {
  Plan plan;
  const int ph = plan.phase_index("bcast");
  const int P = req.size;
  const std::size_t n = req.count;
  if (P == 1 || n == 0) return plan;
  const int v = (req.rank - req.root + P) % P;
  // One step per mask, the largest first (Round::step): v waits for the steps above its
  // lowest set bit, receives in that one and sends in each below it (empty past P).
  int top = 1;
  while (top < P) top <<= 1;
  int mask = 1;
  while (mask < P) {  // receive from the parent: v minus its lowest set bit
    if (v & mask) {
      for (int m = top >> 1; m > mask; m >>= 1) plan.new_round(ph);
      add_recv(plan.new_round(ph), v - mask, out_range(0, n));
      break;
    }
    mask <<= 1;
  }
  for (mask >>= 1; mask > 0; mask >>= 1) {
    Round &r = plan.new_round(ph);
    if (v + mask < P) add_send(r, v + mask, out_range(0, n));
  }
  rotate_peers(plan, req.root, P);
  return plan;
}

double model(const PlanRequest &req, const CostParams &c) {
  const double steps = req.size > 1 ? std::ceil(std::log2(double(req.size))) : 0.0;
  return steps * (c.alpha + c.beta * double(req.count * req.type_size));
}

}  // namespace

const AlgorithmInfo &binomial_bcast_info() {
  static const AlgorithmInfo info = [] {
    AlgorithmInfo a;
    a.coll = Collective::bcast;
    a.name = "binomial";
    a.description = "binomial tree from the root, largest subtree first";
    a.source = "MPICH MPIR_Bcast_intra_binomial; Thakur, Rabenseifner and Gropp 2005";
    a.build = build;
    a.model = model;
    return a;
  }();
  return info;
}

}  // namespace pcoll
