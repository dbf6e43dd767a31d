// shm: allreduce through the node segment, no messages (all ranks on one node).
//
// Tiny vectors (at most 56 bytes, the payload of a flag's cache line, for element sizes that
// divide the 64-byte line) go in the line of the flag itself (patterns/shm.hpp, Lines): each rank
// writes its input into its line and raises the flag there, waits for every other rank's flag,
// and reduces the P lines it fetched with them into its output, in the same order as below. The
// data costs no cache-line transfer beyond the flags' (one per peer, all in parallel).
//
// Small vectors (at most shm_small bytes) go in pieces of c elements (shm_chunk; the whole
// vector when it fits a slot); for each piece every rank copies its input into its own slot and
// raises its flag, waits for every other rank's, and reduces all P slots into its output itself,
// in the same order (x0 op (x1 op (... op x{P-1}))): the same bits everywhere, one
// synchronisation, P - 1 reductions of the piece per rank.
//
// Larger ones go block by block (a reduce-scatter and an allgather through memory, the shape of
// the shared-memory allreduces of Li, Hoefler and Snir, "NUMA-aware shared-memory collective
// communication for MPI", HPDC 2013, and of Open MPI's coll/sm), in pieces of half a slot that
// use the slot's two halves in turn. For each piece, split in P blocks:
//   copy:   rank r copies block q of its input into block q of its slot, for every q != r;
//   reduce: after a wait for every rank's copy, rank r reduces block r of every rank's input
//           (its own from its input, the others' from their slots) into its output, and
//           publishes the result in block r of its own slot;
//   copy:   after a wait for every rank's block, it copies block q of slot q to its output.
// Each element is reduced once, by one rank, and copied through memory twice (in, and the result
// out); a rank moves (P-1)/P of the vector in and out, not all of it. Before a half is reused
// (piece k + 2) a rank waits for everyone to have finished piece k. Operands are always
// combined lower ranks on the left, so non-commutative ops are exact (the grouping of block r
// starts at rank r's operand: the op is associative); every rank copies the one result, so all
// have the same bits. In place, a rank's input is its output: every input block it does not
// reduce is copied to its slot before anything is written to its output.
//
// Restrictions: every rank on one node with its node segment (patterns/shm.hpp); not persistent.
// Cost (m bytes in k pieces): small: 2 flag waits per piece, m copied in, (P-1) m reduced and m
// copied out per rank; large: 3 waits per piece (and one per reused half), 2 m copied through
// the segment and (P-1) m/P reduced per rank, all ranks at once through the node's memory.
// `auto`'s model reads the plan with the machine's [shm] costs (flag latency, copy rate, the
// node's memory bandwidth shared by its ranks); the closed form charges a flag wait at alpha and
// the copies at beta, as the ledger does, an estimate (model_exact = false) that ignores the
// shared memory bandwidth.
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
  const bool small = n * req.type_size <= static_cast<std::size_t>(req.param("shm_small"));
  if (const shm::Lines lines = shm::lines(req); small && n <= lines.payload) {
    shm::use_lines(plan, lines);
    Round &in = plan.new_round(copy_ph);
    add_copy(in, in_range(0, n), lines.at(me, 0, n));
    in.signal = 1;
    add_wait_all(plan.new_round(wait_ph), me, P, 1);
    Round &red = plan.new_round(reduce_ph);
    add_copy(red, lines.at(P - 1, 0, n), out_range(0, n));
    for (int q = P - 2; q >= 0; --q) add_reduce(red, lines.at(q, 0, n), out_range(0, n), true);
    return plan;  // (the executor's end-of-call flag says this rank has read every line)
  }
  const std::size_t c = std::min(n, shm::chunk_elems(req));
  plan.node_elems = static_cast<std::size_t>(P) * c;
  auto slot = [c](int q, std::size_t off, std::size_t len) {
    return node_range(static_cast<std::size_t>(q) * c + off, len);
  };
  if (small) {
    int sig = 0;
    for (std::size_t o = 0; o < n; o += c) {
      const std::size_t len = std::min(c, n - o);
      if (o > 0) add_wait_all(plan.new_round(wait_ph), me, P, sig);  // my slot was read
      Round &in = plan.new_round(copy_ph);
      add_copy(in, in_range(o, len), slot(me, 0, len));
      in.signal = ++sig;
      add_wait_all(plan.new_round(wait_ph), me, P, sig);
      Round &red = plan.new_round(reduce_ph);
      add_copy(red, slot(P - 1, 0, len), out_range(o, len));
      for (int q = P - 2; q >= 0; --q) add_reduce(red, slot(q, 0, len), out_range(o, len), true);
      red.signal = ++sig;  // (this rank has read every slot)
    }
    return plan;
  }
  // Block by block, in pieces of half a slot (shm::pieces_in_halves). Signals per piece k
  // (base 3k): + 1 copied in, + 2 my block reduced and published, + 3 every block copied out.
  const shm::Slots slots{c};
  for (const shm::Piece &p : shm::pieces_in_halves(n, c)) {
    const int base = 3 * p.k;
    // The half this piece uses was last read in piece k - 2: everyone has finished that one.
    if (p.k >= 2) add_wait_all(plan.new_round(wait_ph), me, P, base - 3);
    const BlockSplit split{p.len, static_cast<std::size_t>(P)};
    auto boff = [&](int q) { return split.offset(static_cast<std::size_t>(q)); };
    auto blen = [&](int q) { return split.length(static_cast<std::size_t>(q)); };
    // Reduce block `me` of every rank's input into my output, publish it in my slot.
    const Range acc = out_range(p.off + boff(me), blen(me));
    Round &red = shm::add_block_reduction(plan, p, slots, me, P, base + 1, acc, copy_ph,
                                          wait_ph, reduce_ph);
    add_copy(red, acc, slots.at(me, p.at + boff(me), blen(me)));
    red.signal = base + 2;
    add_wait_all(plan.new_round(wait_ph), me, P, base + 2);
    // Copy out every other rank's reduced block.
    Round &out = plan.new_round(copy_ph);
    for (int q = 0; q < P; ++q)
      if (q != me)
        add_copy(out, slots.at(q, p.at + boff(q), blen(q)), out_range(p.off + boff(q), blen(q)));
    out.signal = base + 3;
  }
  return plan;
}

double model(const PlanRequest &req, const CostParams &k) {
  const double P = req.size, m = double(req.count * req.type_size);
  if (req.size == 1 || m == 0) return 0;
  const double pieces = std::ceil(m / double(shm::chunk_elems(req) * req.type_size));
  if (m <= double(req.param("shm_small")))  // per piece: wait for reuse, copy in, wait, reduce
    return (2 * pieces - 1) * k.alpha + k.beta * 2 * m + k.gamma * (P - 1) * m;
  // per piece of half a slot: copy in, wait, reduce a block, wait, copy out (and a wait before
  // a half is reused)
  const double halves =
      shm::count_pieces_in_halves(m, double(shm::chunk_elems(req) * req.type_size), req.type_size);
  return (3 * halves + std::max(0.0, halves - 2)) * k.alpha + k.beta * 2 * m +
         k.gamma * (P - 1) / P * m;
}

// The other path for `auto` to weigh: block by block where the default reduces all slots (at
// large P the small path's (P - 1) m reductions per rank cost more than its one
// synchronisation saves), all slots where the default goes block by block.
std::vector<std::vector<std::pair<std::string, std::string>>> tunings(const PlanRequest &req) {
  if (req.size <= 2 || req.count == 0) return {};
  const std::size_t m = req.count * req.type_size;
  if (m <= static_cast<std::size_t>(req.param("shm_small"))) return {{{"shm_small", "0"}}};
  if (m <= shm::chunk_elems(req) * req.type_size) return {{{"shm_small", std::to_string(m)}}};
  return {};
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
    a.tunings = tunings;
    a.check = shm::check;
    a.model_exact = false;
    a.uses_node_segment = true;
    return a;
  }();
  return info;
}

}  // namespace pcoll
