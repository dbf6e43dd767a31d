// shm: allreduce through the node segment, no messages (all ranks on one node).
//
// The vector goes in pieces of c elements (shm_chunk; the whole vector when it fits a slot). For
// each piece:
//   copy:   every rank copies its piece of the input into its own slot; raises its flag;
//   wait:   for every other rank's copy;
//   small vectors (at most shm_small bytes): every rank reduces all P slots into its output
//     itself, in the same order (x0 op (x1 op (... op x{P-1}))): the same bits everywhere, one
//     synchronisation, P - 1 reductions of the whole piece per rank;
//   larger ones: rank j reduces block j of the piece (the P-way split of c) across all slots into
//     slot P-1's block j, raises its flag; after a wait for every rank's block, every rank copies
//     slot P-1's piece to its output: each element is reduced once, by one rank (a reduce-scatter
//     and an allgather through memory, the shape of the reduce-scatter-based shared-memory
//     allreduces of Li, Hoefler and Snir, "NUMA-aware shared-memory collective communication for
//     MPI", HPDC 2013, and of Open MPI's coll/sm).
// Before a rank overwrites its slot with the next piece it waits for everyone to have read the
// last one (after their reduction, and for slot P-1 after their copy-out). Operands are always
// combined lower ranks on the left, so non-commutative ops are exact; every rank copies the one
// result, so all have the same bits.
//
// Restrictions: every rank on one node with its node segment (patterns/shm.hpp); not persistent.
// Cost (m bytes in k pieces): small: 2 flag waits per piece, m copied in, (P-1) m reduced and m
// copied out per rank; large: 3 waits per piece, m copied in, (P-1) m/P reduced and m copied
// out per rank, all ranks at once through the node's memory. The model charges a flag wait at
// alpha and the copies through the segment at beta, as the ledger does; it is an estimate
// (model_exact = false): it ignores that the P ranks share the node's memory bandwidth.
#include <algorithm>
#include <cmath>

#include "../../registry.hpp"
#include "../patterns/shm.hpp"

namespace pcoll {
namespace {

const ParamSpec &small_param() {
  static const ParamSpec p =
      ParamSpec::integer("shm_small", "2k")
          .range(0, 1LL << 30)
          .size_suffixes()
          .about("allreduce shm: vectors of at most this many bytes are reduced by every rank "
                 "from all slots (one synchronisation); larger ones block by block (a "
                 "reduce-scatter and an allgather through memory)");
  return p;
}

Plan build(const PlanRequest &req) {
  Plan plan;
  const int P = req.size, me = req.rank;
  const std::size_t n = req.count;
  if (P == 1 || n == 0) return plan;  // (the executor's copy of in to out is the result)
  const int copy_ph = plan.phase_index("shm_copy"), wait_ph = plan.phase_index("shm_wait"),
            reduce_ph = plan.phase_index("shm_reduce");
  plan.reads_in_only = true;
  const std::size_t c = std::min(n, shm::chunk_elems(req));
  auto slot = [c](int q, std::size_t off, std::size_t len) {
    return node_range(static_cast<std::size_t>(q) * c + off, len);
  };
  plan.node_elems = static_cast<std::size_t>(P) * c;
  const bool small = n * req.type_size <= static_cast<std::size_t>(req.param("shm_small"));
  int sig = 0;
  for (std::size_t o = 0; o < n; o += c) {
    const std::size_t len = std::min(c, n - o);
    if (o > 0) {
      // Everyone has read what the last piece left in this rank's slot.
      Round &w = plan.new_round(wait_ph);
      add_wait_all(w, me, P, sig);
    }
    Round &in = plan.new_round(copy_ph);
    add_copy(in, in_range(o, len), slot(me, 0, len));
    in.signal = ++sig;
    add_wait_all(plan.new_round(wait_ph), me, P, sig);
    if (small) {
      Round &red = plan.new_round(reduce_ph);
      add_copy(red, slot(P - 1, 0, len), out_range(o, len));
      for (int q = P - 2; q >= 0; --q) add_reduce(red, slot(q, 0, len), out_range(o, len), true);
      red.signal = ++sig;  // (this rank has read every slot)
      continue;
    }
    const BlockSplit split{len, static_cast<std::size_t>(P)};
    const std::size_t bo = split.offset(static_cast<std::size_t>(me)),
                      bl = split.length(static_cast<std::size_t>(me));
    Round &red = plan.new_round(reduce_ph);
    for (int q = P - 2; q >= 0; --q) add_reduce(red, slot(q, bo, bl), slot(P - 1, bo, bl), true);
    red.signal = ++sig;
    add_wait_all(plan.new_round(wait_ph), me, P, sig);
    Round &out = plan.new_round(copy_ph);
    add_copy(out, slot(P - 1, 0, len), out_range(o, len));
    out.signal = ++sig;  // (this rank has read slot P-1)
  }
  return plan;
}

double model(const PlanRequest &req, const CostParams &k) {
  const double P = req.size, m = double(req.count * req.type_size);
  if (req.size == 1 || m == 0) return 0;
  const double pieces = std::ceil(m / double(shm::chunk_elems(req) * req.type_size));
  if (m <= double(req.param("shm_small")))  // per piece: wait for reuse, copy in, wait, reduce
    return (2 * pieces - 1) * k.alpha + k.beta * 2 * m + k.gamma * (P - 1) * m;
  // per piece: wait for reuse, copy in, wait, reduce a block, wait, copy out
  return (3 * pieces - 1) * k.alpha + k.beta * 2 * m + k.gamma * (P - 1) / P * m;
}

}  // namespace

const AlgorithmInfo &shm_allreduce_info() {
  static const AlgorithmInfo info = [] {
    AlgorithmInfo a;
    a.coll = Collective::allreduce;
    a.name = "shm";
    a.description =
        "through the node segment, no messages: every rank reduces all slots (small) or its "
        "block of every slot, then copies the result (one node)";
    a.source =
        "Li, Hoefler and Snir, NUMA-aware shared-memory collective communication for MPI "
        "(HPDC 2013); Open MPI coll/sm";
    a.params = {shm::chunk_param(), small_param()};
    a.build = build;
    a.model = model;
    a.check = shm::check;
    a.model_exact = false;
    a.auto_candidate = false;  // until the cost model knows the segment's costs
    a.uses_node_segment = true;
    return a;
  }();
  return info;
}

}  // namespace pcoll
