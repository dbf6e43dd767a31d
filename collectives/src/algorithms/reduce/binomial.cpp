// binomial: reduce up a binomial tree rooted at rank 0, in rank order, then (root != 0) one
// message from rank 0 to the root (MPICH's MPIR_Reduce_intra_binomial, which does the same for
// non-commutative ops; Thakur, Rabenseifner and Gropp 2005, Sec. 3.3). In step k (mask = 2^k) a
// rank with bit k set sends its partial result, which covers ranks [r, r + mask), to r - mask and
// stops; the others receive that of r + mask and reduce it on the right: acc = acc (op) recv.
// Every combination joins adjacent rank intervals left to right, so non-commutative ops are
// exact, and the result is the same expression whatever the root.
//
// Leaves send straight from the input; the root accumulates in its receive buffer (MPI_IN_PLACE
// included), the other inner ranks in scratch.
// Restrictions: none (any P, any root, any op).
// Cost: ceil(log2 P)(alpha + beta n + gamma n), plus alpha + beta n when root != 0.
// Temporary: 2n at inner ranks (n at the root).
#include <cmath>

#include "../../registry.hpp"

namespace pcoll {
namespace {

Plan build(const PlanRequest &req) {
  Plan plan;
  const int ph = plan.phase_index("reduce");
  const int P = req.size, me = req.rank, root = req.root;
  const std::size_t n = req.count;
  if (n == 0) return plan;
  bool receives = false;
  for (int mask = 1; mask < P; mask <<= 1) {
    if (me & mask) break;
    if (me + mask < P) {
      receives = true;
      break;
    }
  }
  const Range acc = me == root ? out_range(0, n) : (receives ? tmp_range(0, n) : in_range(0, n));
  const std::size_t slot_off = acc.buf == Buf::tmp ? n : 0;
  // One step per mask (Round::step), the copy's included: every rank has them all, empty after
  // it sent its partial result up.
  Round &start = plan.new_round(ph);
  if (acc.buf != Buf::in) add_copy(start, in_range(0, n), acc);
  if (receives) plan.tmp_elems = slot_off + n;
  bool sent = false;
  for (int mask = 1; mask < P; mask <<= 1) {
    Round &r = plan.new_round(ph);
    if (sent) continue;
    if (me & mask) {
      add_send(r, me - mask, acc);
      sent = true;
      continue;
    }
    if (me + mask < P) {
      const int rv = add_recv(r, me + mask, tmp_range(slot_off, n));
      add_reduce(r, tmp_range(slot_off, n), acc, /*src_is_left=*/false, rv);
    }
  }
  if (root != 0 && me == 0) add_send(plan.new_round(ph), root, acc);
  if (root != 0 && me == root) add_recv(plan.new_round(ph), 0, out_range(0, n));
  return plan;
}

double model(const PlanRequest &req, const CostParams &c) {
  const double n = double(req.count * req.type_size);
  const double steps = req.size > 1 ? std::ceil(std::log2(double(req.size))) : 0.0;
  return steps * (c.alpha + c.beta * n + c.gamma * n) + (req.root != 0 ? c.alpha + c.beta * n : 0);
}

}  // namespace

const AlgorithmInfo &binomial_reduce_info() {
  static const AlgorithmInfo info = [] {
    AlgorithmInfo a;
    a.coll = Collective::reduce;
    a.name = "binomial";
    a.description =
        "binomial tree to rank 0 in rank order (non-commutative ops exact), then to the root";
    a.source = "MPICH MPIR_Reduce_intra_binomial; Thakur, Rabenseifner and Gropp 2005";
    a.build = build;
    a.model = model;
    return a;
  }();
  return info;
}

}  // namespace pcoll
