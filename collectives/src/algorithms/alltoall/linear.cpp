// linear: all-to-all by direct messages posted alltoall_batch peers at a time (MPICH's
// "scattered" alltoall, alltoall_intra_scattered, whose throttle MPIR_CVAR_ALLTOALL_THROTTLE is
// 32 by default; with alltoall_batch = 0 every receive and send at once, Open MPI's
// basic_linear). Rank r exchanges with (r + k) mod P (sends) and (r - k) mod P (receives) for
// k = 1..P-1, in rounds of alltoall_batch values of k, so that at any moment the ranks are busy
// with different peers, and copies its own block locally. Every block crosses the network once
// with one message per destination, as in pairwise, but a round's messages are in flight
// together: P-1 dependent steps become ceil((P-1) / batch). The batch bounds the outstanding
// requests per rank and the flows converging on one rank.
//
// Restrictions: none (any P, any count).
// Cost (n = bytes per destination): T = (P-1)(alpha + beta n) in the textbook model, which
// charges every message its alpha; the model on the machine description overlaps the latencies
// of a round's messages (ceil((P-1)/batch) latencies, plus each message's overhead).
// Temporary: none.
#include <algorithm>

#include "../../registry.hpp"
#include "../patterns/direct_exchange.hpp"

namespace pcoll {
namespace {

// Peers per round: alltoall_batch, 0 = all P-1 at once.
int batch_of(const PlanRequest &req) {
  const long long b = req.param("alltoall_batch");
  return static_cast<int>(b == 0 || b >= req.size ? std::max(req.size - 1, 1) : b);
}

Plan build(const PlanRequest &req) {
  Plan plan;
  const int ph = plan.phase_index("exchange");
  if (req.count == 0) return plan;
  direct_exchange(plan, ph, req.rank, req.size, req.count, batch_of(req), false);
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
        "direct messages to (r+k) mod P, alltoall_batch peers posted at a time (MPICH scattered; "
        "0 = all at once, Open MPI basic_linear)";
    a.source = "MPICH alltoall_intra_scattered; Open MPI coll_base_alltoall_intra_basic_linear";
    a.params = {ParamSpec::integer("alltoall_batch", "32")
                    .range(0, 1 << 20)
                    .about("alltoall linear: peers whose messages are posted together (MPICH's "
                           "MPIR_CVAR_ALLTOALL_THROTTLE, 32); 0 = all P-1 at once")};
    a.build = build;
    a.model = model;
    return a;
  }();
  return info;
}

}  // namespace pcoll
