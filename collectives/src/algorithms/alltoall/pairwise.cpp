// pairwise: all-to-all by P-1 rounds of direct exchange (MPICH's pairwise-exchange alltoall,
// Thakur, Rabenseifner and Gropp 2005, Sec. 3.4; the direct path of HPX's "Add size-based
// pairwise dispatch to all_to_all"). In round k = 1..P-1 rank r sends its block for
// (r + k) mod P straight to that rank and receives the block of (r - k) mod P into place; when P
// is a power of two the partner is r xor k instead, so that every round is a perfect matching
// (each pair exchanges both ways at once). The own block is copied locally in the first round.
// Every block crosses the network once, with one message per destination: the bandwidth-optimal
// schedule, chosen by `auto` from pairwise_threshold bytes per destination.
//
// Restrictions: none (any P, any count).
// Cost (n = bytes per destination): T = (P-1)(alpha + beta n). Temporary: none.
#include "../../registry.hpp"
#include "../patterns/direct_exchange.hpp"

namespace pcoll {
namespace {

bool power_of_two(int p) {
  return p > 0 && (p & (p - 1)) == 0;
}

Plan build(const PlanRequest &req) {
  Plan plan;
  const int ph = plan.phase_index("exchange");
  if (req.count == 0) return plan;
  direct_exchange(plan, ph, req.rank, req.size, req.count, 1, power_of_two(req.size));
  return plan;
}

double model(const PlanRequest &req, const CostParams &c) {
  return (req.size - 1) * (c.alpha + c.beta * double(req.count * req.type_size));
}

}  // namespace

const AlgorithmInfo &pairwise_alltoall_info() {
  static const AlgorithmInfo info = [] {
    AlgorithmInfo a;
    a.coll = Collective::alltoall;
    a.name = "pairwise";
    a.description =
        "P-1 rounds of direct exchange, partner (r+k) mod P / (r-k) mod P or r xor k for a "
        "power-of-two P";
    a.source =
        "Thakur, Rabenseifner and Gropp 2005; HPX pull request \"Add size-based pairwise dispatch "
        "to all_to_all\"";
    a.build = build;
    a.model = model;
    return a;
  }();
  return info;
}

}  // namespace pcoll
