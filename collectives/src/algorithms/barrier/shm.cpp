// shm: the barrier through the node segment's flags, no messages (all ranks on one node). Every
// rank raises its flag, then waits for every other rank's: nobody leaves before everybody has
// entered. A flag is one cache line written only by its rank, so arrivals never contend on a
// shared counter; the P - 1 polls per rank are reads of lines that change once.
//
// Restrictions: every rank on one node with its node segment (patterns/shm.hpp); not persistent.
// Cost: two flag latencies (a store seen by the others, and the last arrival's).
#include "../../registry.hpp"
#include "../patterns/shm.hpp"

namespace pcoll {
namespace {

Plan build(const PlanRequest &req) {
  Plan plan;
  if (req.size == 1) return plan;
  const int arrive = plan.phase_index("shm_signal"), wait = plan.phase_index("shm_wait");
  plan.new_round(arrive).signal = 1;
  add_wait_all(plan.new_round(wait), req.rank, req.size, 1);
  return plan;
}

double model(const PlanRequest &req, const CostParams &c) {
  return req.size > 1 ? 2 * c.alpha : 0.0;
}

}  // namespace

const AlgorithmInfo &shm_barrier_info() {
  static const AlgorithmInfo info = [] {
    AlgorithmInfo a;
    a.coll = Collective::barrier;
    a.name = "shm";
    a.description = "every rank raises its flag in the node segment and waits for all others'";
    a.source = "flag barrier on shared memory (one line per rank), as Open MPI's coll/sm";
    a.params = {shm::chunk_param()};
    a.build = build;
    a.model = model;
    a.check = shm::check;
    a.uses_node_segment = true;
    a.model_exact = false;
    return a;
  }();
  return info;
}

}  // namespace pcoll
