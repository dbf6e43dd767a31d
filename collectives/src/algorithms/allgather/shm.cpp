// shm: allgather through the node segment, no messages (all ranks on one node).
//
// Every rank copies its block into its own slot and raises its flag; after a wait for every
// rank's, it copies every other rank's slot to that rank's place in its output (its own block
// straight from its input). A block longer than a slot goes in pieces of half a slot that use
// the slot's two halves in turn, so that a rank copies piece k + 1 in while the others still copy
// piece k out; before a half is reused (piece k + 2) it waits for everyone to have read piece k.
//
// Restrictions: every rank on one node with its node segment (patterns/shm.hpp); not persistent.
// Cost (n bytes per block in k pieces): k flag waits (and one per reused half), n copied in and
// (P-1) n copied out per rank, all ranks at once through the node's memory, whose bandwidth the
// ranks share (`auto`'s model charges it from the machine's [shm]; the closed form leaves it
// out).
#include <algorithm>
#include <cmath>

#include "../../registry.hpp"
#include "../patterns/shm.hpp"

namespace pcoll {
namespace {

Plan build(const PlanRequest &req) {
  Plan plan;
  const int P = req.size, me = req.rank;
  const std::size_t n = req.count;
  if (n == 0) return plan;
  const int copy_ph = plan.phase_index("shm_copy"), wait_ph = plan.phase_index("shm_wait");
  const auto blk = [n](int q) { return static_cast<std::size_t>(q) * n; };
  add_copy(plan.new_round(copy_ph), in_range(0, n), out_range(blk(me), n));
  if (P == 1) return plan;
  const std::size_t c = std::min(n, shm::chunk_elems(req));
  plan.node_elems = static_cast<std::size_t>(P) * c;
  // Signals per piece k: 2k + 1 = copied in, 2k + 2 = copied every other slot out.
  const shm::Slots slots{c};
  for (const shm::Piece &p : shm::pieces_in_halves(n, c)) {
    const int base = 2 * p.k;
    if (p.k >= 2) add_wait_all(plan.new_round(wait_ph), me, P, base - 2);
    Round &in = plan.new_round(copy_ph);
    add_copy(in, in_range(p.off, p.len), slots.at(me, p.at, p.len));
    in.signal = base + 1;
    add_wait_all(plan.new_round(wait_ph), me, P, base + 1);
    Round &out = plan.new_round(copy_ph);
    for (int q = 0; q < P; ++q)
      if (q != me) add_copy(out, slots.at(q, p.at, p.len), out_range(blk(q) + p.off, p.len));
    out.signal = base + 2;
  }
  return plan;
}

double model(const PlanRequest &req, const CostParams &k) {
  const double P = req.size, m = double(req.count * req.type_size);
  if (req.size == 1 || m == 0) return 0;
  const double c = double(shm::chunk_elems(req) * req.type_size);
  const double halves = shm::count_pieces_in_halves(m, c, req.type_size);
  return (halves + std::max(0.0, halves - 2)) * k.alpha + k.beta * P * m;
}

}  // namespace

const AlgorithmInfo &shm_allgather_info() {
  static const AlgorithmInfo info = [] {
    AlgorithmInfo a;
    a.coll = Collective::allgather;
    a.name = "shm";
    a.description =
        "through the node segment, no messages: every rank copies its block into its slot, "
        "then every slot out (one node)";
    a.source = "copy-in/copy-out allgather on shared memory, as Open MPI's coll/sm";
    a.params = {shm::chunk_param()};
    a.build = build;
    a.model = model;
    a.check = shm::check;
    a.model_exact = false;
    a.uses_node_segment = true;
    return a;
  }();
  return info;
}

}  // namespace pcoll
