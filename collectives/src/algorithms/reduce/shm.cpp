// shm: reduce through the node segment, no messages (all ranks on one node).
//
// Small vectors (at most shm_small bytes), in pieces of c elements (shm_chunk; the whole vector
// when it fits a slot): every rank copies its input into its slot and raises its flag; the root
// waits for all and reduces the P slots into its output in rank order (x0 op (x1 op ...)): one
// synchronisation, the root does all P - 1 reductions.
//
// Larger ones block by block, as allreduce shm (pieces of half a slot, the two halves in turn):
// rank r copies block q of its input into block q of its slot for every q != r, waits for every
// rank's copy, reduces block r of every rank's input (its own from its input) into block r of its
// own slot and raises its flag; the root waits for every block and copies them to its output.
// The P ranks reduce at once, each (P-1)/P of the vector less than the root alone would.
// Non-commutative ops are exact: operands are combined lower ranks on the left.
//
// Restrictions: every rank on one node with its node segment (patterns/shm.hpp); not persistent.
// Cost (m bytes in k pieces): small: 1 flag wait per piece, m copied in, (P-1) m reduced at the
// root; large: 2 waits per piece on the root's path, 2m copied through the segment and
// (P-1) m / P reduced per rank.
#include <algorithm>
#include <cmath>

#include "../../registry.hpp"
#include "../patterns/shm.hpp"

namespace pcoll {
namespace {

const ParamSpec &small_param() {
  static const ParamSpec p =
      ParamSpec::integer("shm_reduce_small", "2k")
          .range(0, 1LL << 30)
          .size_suffixes()
          .about("reduce shm: vectors of at most this many bytes are reduced by the root from "
                 "all slots (one synchronisation); larger ones block by block by every rank");
  return p;
}

Plan build(const PlanRequest &req) {
  Plan plan;
  const int P = req.size, me = req.rank, root = req.root;
  const std::size_t n = req.count;
  if (n == 0) return plan;
  if (P == 1) {
    add_copy(plan.new_round(plan.phase_index("shm_copy")), in_range(0, n), out_range(0, n));
    return plan;
  }
  const int copy_ph = plan.phase_index("shm_copy"), wait_ph = plan.phase_index("shm_wait"),
            reduce_ph = plan.phase_index("shm_reduce");
  const std::size_t c = std::min(n, shm::chunk_elems(req));
  plan.node_elems = static_cast<std::size_t>(P) * c;
  auto slot = [c](int q, std::size_t off, std::size_t len) {
    return node_range(static_cast<std::size_t>(q) * c + off, len);
  };
  if (n * req.type_size <= static_cast<std::size_t>(req.param("shm_reduce_small"))) {
    // Signals per piece k: 2k + 1 = copied in; the root's 2k + 2 = read every slot.
    int k = 0;
    for (std::size_t o = 0; o < n; o += c, ++k) {
      const std::size_t len = std::min(c, n - o);
      if (k > 0 && me != root)  // the root has read my slot's last piece
        plan.new_round(wait_ph).waits.push_back(Wait{root, 2 * k});
      Round &in = plan.new_round(copy_ph);
      add_copy(in, in_range(o, len), slot(me, 0, len));
      in.signal = 2 * k + 1;
      if (me != root) continue;
      add_wait_all(plan.new_round(wait_ph), me, P, 2 * k + 1);
      Round &red = plan.new_round(reduce_ph);
      add_copy(red, slot(P - 1, 0, len), out_range(o, len));
      for (int q = P - 2; q >= 0; --q) add_reduce(red, slot(q, 0, len), out_range(o, len), true);
      red.signal = 2 * k + 2;
    }
    return plan;
  }
  // Block by block, in pieces of half a slot (shm::pieces_in_halves). Signals per piece k
  // (base 3k): + 1 copied in, + 2 my block reduced, + 3 (the root) every block copied out.
  const shm::Slots slots{c};
  for (const shm::Piece &p : shm::pieces_in_halves(n, c)) {
    const int base = 3 * p.k;
    if (p.k >= 2) {  // piece k - 2, in this half, was read: by every rank's reduction, the root's copy
      Round &w = plan.new_round(wait_ph);
      for (int q = 0; q < P; ++q)
        if (q != me) w.waits.push_back(Wait{q, q == root ? base - 3 : base - 4});
    }
    const BlockSplit split{p.len, static_cast<std::size_t>(P)};
    auto boff = [&](int q) { return split.offset(static_cast<std::size_t>(q)); };
    auto blen = [&](int q) { return split.length(static_cast<std::size_t>(q)); };
    const Range acc = slots.at(me, p.at + boff(me), blen(me));
    shm::add_block_reduction(plan, p, slots, me, P, base + 1, acc, copy_ph, wait_ph, reduce_ph)
        .signal = base + 2;
    if (me != root) continue;
    add_wait_all(plan.new_round(wait_ph), me, P, base + 2);
    Round &out = plan.new_round(copy_ph);
    for (int q = 0; q < P; ++q)
      add_copy(out, slots.at(q, p.at + boff(q), blen(q)), out_range(p.off + boff(q), blen(q)));
    out.signal = base + 3;
  }
  return plan;
}

double model(const PlanRequest &req, const CostParams &k) {
  const double P = req.size, m = double(req.count * req.type_size);
  if (req.size == 1 || m == 0) return 0;
  const double c = double(shm::chunk_elems(req) * req.type_size);
  const double pieces = std::ceil(m / c);
  if (m <= double(req.param("shm_reduce_small")))
    return pieces * k.alpha + k.beta * m + k.gamma * (P - 1) * m;
  const double halves = shm::count_pieces_in_halves(m, c, req.type_size);
  return 2 * halves * k.alpha + k.beta * 2 * m + k.gamma * (P - 1) / P * m;
}

}  // namespace

const AlgorithmInfo &shm_reduce_info() {
  static const AlgorithmInfo info = [] {
    AlgorithmInfo a;
    a.coll = Collective::reduce;
    a.name = "shm";
    a.description =
        "through the node segment, no messages: the root reduces all slots (small) or every "
        "rank reduces its block of every slot and the root copies the blocks (one node)";
    a.source =
        "Li, Hoefler and Snir, NUMA-aware shared-memory collective communication for MPI "
        "(HPDC 2013); Open MPI coll/sm";
    a.params = {shm::chunk_param(), small_param()};
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
