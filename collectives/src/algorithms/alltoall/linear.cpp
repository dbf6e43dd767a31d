// linear: all-to-all in one round of direct messages, every receive and send posted at once
// (Open MPI's basic_linear alltoall, coll_base_alltoall.c; MPICH's "scattered" alltoall without
// its throttle). Rank r posts its receives from and sends to (r + k) mod P for k = 1..P-1, so
// that at any moment the ranks are busy with different peers (the destination order MPICH's
// scattered alltoall uses), and copies its own block locally. Every block crosses the network
// once with one message per destination, as in pairwise, but nothing waits for a previous
// exchange: the P-1 messages of a rank are in flight together and its link stays full. The cost
// is P-1 outstanding requests per rank (MPICH throttles them in batches of
// MPIR_CVAR_ALLTOALL_THROTTLE, 32 by default; pcoll does not).
//
// Restrictions: none (any P, any count).
// Cost (n = bytes per destination): T = (P-1) alpha + (P-1) beta n when the rank's link is the
// bottleneck (one round: every message's latency overlaps). Temporary: none.
#include "../../registry.hpp"

namespace pcoll {
namespace {

Plan build(const PlanRequest &req) {
  Plan plan;
  const int ph = plan.phase_index("exchange");
  const int P = req.size, me = req.rank;
  const std::size_t n = req.count;
  if (n == 0) return plan;
  auto blk = [n](int q) { return static_cast<std::size_t>(q) * n; };
  Round &r = plan.new_round(ph);
  add_copy(r, in_range(blk(me), n), out_range(blk(me), n));
  for (int k = 1; k < P; ++k) {
    const int from = (me - k + P) % P, to = (me + k) % P;
    add_recv(r, from, out_range(blk(from), n));
    add_send(r, to, in_range(blk(to), n));
  }
  return plan;
}

double model(const PlanRequest &req, const CostParams &c) {
  return (req.size - 1) * (c.alpha + c.beta * double(req.count * req.type_size));
}

}  // namespace

const AlgorithmInfo &linear_alltoall_info() {
  static const AlgorithmInfo info = [] {
    AlgorithmInfo a;
    a.coll = Collective::alltoall;
    a.name = "linear";
    a.description =
        "one round: every receive and send posted at once, destinations (r+k) mod P (Open MPI "
        "basic_linear)";
    a.source = "Open MPI coll_base_alltoall_intra_basic_linear; MPICH alltoall_intra_scattered";
    a.build = build;
    a.model = model;
    return a;
  }();
  return info;
}

}  // namespace pcoll
