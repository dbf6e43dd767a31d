// shm: all-to-all through the node segment, no messages (all ranks on one node).
//
// Rank r's slot holds, in turn, the P blocks it sends, one sub-slot per destination. Every rank
// copies its block for q into sub-slot q of its slot (for every q != r) and raises its flag;
// after a wait for every rank's, it copies sub-slot r of every other rank's slot to that rank's
// place in its output (its own block straight from its input). When the P blocks do not fit a
// slot they go in pieces of half a sub-slot, the two halves of the slot in turn, so that a rank
// copies piece k + 1 in while the others copy piece k out; before a half is reused (piece k + 2)
// it waits for everyone to have read piece k.
//
// Restrictions: every rank on one node with its node segment (patterns/shm.hpp), a slot of at
// least 2P elements (PCOLL_SHM_SEGMENT or shm_chunk); not persistent.
// Cost (n bytes per destination in k pieces): k flag waits (and one per reused half), (P-1) n
// copied in and (P-1) n copied out per rank, all at once through the node's memory.
#include <algorithm>
#include <cmath>

#include "../../registry.hpp"
#include "../patterns/shm.hpp"

namespace pcoll {
namespace {

// The pieces of each block: the slot holds c / P elements per destination
// (shm::pieces_in_halves on that).
std::vector<shm::Piece> pieces_of(const PlanRequest &req) {
  return shm::pieces_in_halves(req.count,
                               shm::chunk_elems(req) / static_cast<std::size_t>(req.size));
}

std::string check(const PlanRequest &req) {
  std::string why = shm::check(req);
  if (!why.empty() || req.size == 1) return why;
  if (shm::chunk_elems(req) < 2 * static_cast<std::size_t>(req.size))
    return "the slot (shm_chunk, or PCOLL_SHM_SEGMENT) holds fewer than 2P elements";
  return {};
}

Plan build(const PlanRequest &req) {
  Plan plan;
  const int P = req.size, me = req.rank;
  const std::size_t n = req.count;
  if (n == 0) return plan;
  const int copy_ph = plan.phase_index("shm_copy"), wait_ph = plan.phase_index("shm_wait");
  const auto blk = [n](int q) { return static_cast<std::size_t>(q) * n; };
  add_copy(plan.new_round(copy_ph), in_range(blk(me), n), out_range(blk(me), n));
  if (P == 1) return plan;
  const std::vector<shm::Piece> pieces = pieces_of(req);
  // Slot q at q * c: the whole slot, or the P blocks when they fit in it; sub-slot d of a
  // piece at d * (the piece's length) in its half.
  const bool whole = pieces.size() == 1;
  const std::size_t c = whole ? n * static_cast<std::size_t>(P) : shm::chunk_elems(req);
  const std::size_t stride = pieces.front().len;  // (the last piece may be shorter)
  plan.node_elems = static_cast<std::size_t>(P) * c;
  // Signals per piece k: 2k + 1 = copied in, 2k + 2 = copied every other slot's sub-slot out.
  for (const shm::Piece &p : pieces) {
    auto sub = [&](int owner, int dest) {
      return node_range(static_cast<std::size_t>(owner) * c + p.at * static_cast<std::size_t>(P) +
                            static_cast<std::size_t>(dest) * stride,
                        p.len);
    };
    const int base = 2 * p.k;
    if (p.k >= 2) add_wait_all(plan.new_round(wait_ph), me, P, base - 2);
    Round &in = plan.new_round(copy_ph);
    for (int q = 0; q < P; ++q)
      if (q != me) add_copy(in, in_range(blk(q) + p.off, p.len), sub(me, q));
    in.signal = base + 1;
    add_wait_all(plan.new_round(wait_ph), me, P, base + 1);
    Round &out = plan.new_round(copy_ph);
    for (int q = 0; q < P; ++q)
      if (q != me) add_copy(out, sub(q, me), out_range(blk(q) + p.off, p.len));
    out.signal = base + 2;
  }
  return plan;
}

double model(const PlanRequest &req, const CostParams &k) {
  const double P = req.size, m = double(req.count * req.type_size);
  if (req.size == 1 || m == 0) return 0;
  const double halves = shm::count_pieces_in_halves(
      double(req.count), double(shm::chunk_elems(req) / static_cast<std::size_t>(req.size)), 1);
  return (halves + std::max(0.0, halves - 2)) * k.alpha + k.beta * 2 * (P - 1) * m;
}

}  // namespace

const AlgorithmInfo &shm_alltoall_info() {
  static const AlgorithmInfo info = [] {
    AlgorithmInfo a;
    a.coll = Collective::alltoall;
    a.name = "shm";
    a.description =
        "through the node segment, no messages: every rank copies its blocks into its slot, one "
        "sub-slot per destination, then its sub-slot of every slot out (one node)";
    a.source = "copy-in/copy-out all-to-all on shared memory";
    a.params = {shm::chunk_param()};
    a.build = build;
    a.model = model;
    a.check = check;
    a.model_exact = false;
    a.uses_node_segment = true;
    return a;
  }();
  return info;
}

}  // namespace pcoll
