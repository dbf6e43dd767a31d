// dissemination: the dissemination barrier of Hensgen, Finkel and Manber 1988 (MPICH's
// MPIR_Barrier_intra_dissemination): in round k = 0..ceil(log2 P)-1 rank r sends to
// (r + 2^k) mod P and receives from (r - 2^k) mod P. After round k a rank has heard, through a
// chain of messages, from the 2^(k+1) ranks before it, so after the last round from all P:
// nobody leaves before everybody has entered. Any P, no power-of-two fold needed.
//
// Messages are one byte of scratch (the plan model has no empty messages).
// Restrictions: none.
// Cost: ceil(log2 P) alpha. Temporary: 2 bytes.
#include <cmath>

#include "../../registry.hpp"

namespace pcoll {
namespace {

Plan build(const PlanRequest &req) {
  Plan plan;
  const int ph = plan.phase_index("dissemination");
  const int P = req.size, me = req.rank;
  if (P == 1) return plan;
  plan.tmp_elems = 2;  // [0] is sent, [1] receives: a round never receives what it sends
  for (int k = 1; k < P; k <<= 1) {
    Round &r = plan.new_round(ph);
    add_recv(r, (me - k + P) % P, tmp_range(1, 1));
    add_send(r, (me + k) % P, tmp_range(0, 1));
  }
  return plan;
}

double model(const PlanRequest &req, const CostParams &c) {
  return (req.size > 1 ? std::ceil(std::log2(double(req.size))) : 0.0) * c.alpha;
}

}  // namespace

const AlgorithmInfo &dissemination_barrier_info() {
  static const AlgorithmInfo info = [] {
    AlgorithmInfo a;
    a.coll = Collective::barrier;
    a.name = "dissemination";
    a.description = "ceil(log2 P) rounds: send to r + 2^k, receive from r - 2^k (mod P)";
    a.source = "Hensgen, Finkel and Manber 1988; MPICH MPIR_Barrier_intra_dissemination";
    a.build = build;
    a.model = model;
    return a;
  }();
  return info;
}

}  // namespace pcoll
