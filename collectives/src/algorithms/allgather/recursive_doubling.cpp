// recursive_doubling: allgather by recursive doubling (Thakur, Rabenseifner, Gropp 2005,
// Sec. 3.1; the second half of rabenseifner). With the power-of-two fold, the even rank of a
// folded pair first hands its block to the odd one, new rank q then owns the blocks of real ranks
// [slot_lo(q), slot_hi(q)); in step s new ranks q and q xor 2^s exchange the (contiguous) ranges
// they own, doubling them; at the end the odd rank sends the whole vector to its even partner.
//
// Restrictions: none.
// Cost (n = bytes per block, P' the largest power of two <= P, f = 1 if P != P'):
//   T = log2 P' alpha + (P'-1)/P' beta n P + f (2 alpha + beta n (P + 1)). Temporary: none.
#include "../../registry.hpp"
#include "../patterns/fold.hpp"

namespace pcoll {
namespace {

Plan build(const PlanRequest &req) {
  Plan plan;
  const int fold_ph = plan.phase_index("fold"), ag = plan.phase_index("allgather"),
            unfold_ph = plan.phase_index("unfold");
  const int P = req.size, me = req.rank;
  const std::size_t n = req.count, m = n * static_cast<std::size_t>(P);
  if (n == 0) return plan;
  const PowerOfTwoFold f(P);
  const std::size_t mine = static_cast<std::size_t>(me) * n;
  add_copy(plan.new_round(fold_ph), in_range(0, n), out_range(mine, n));
  if (me < 2 * f.rem) {
    Round &r = plan.new_round(fold_ph);
    if (me % 2 == 0)
      add_send(r, me + 1, out_range(mine, n));
    else
      add_recv(r, me - 1, out_range(mine - n, n));
  }
  const int nr = f.new_rank(me);
  auto elems = [&](int q0, int q1) {  // (offset, length)
    const auto e = slot_elems(f, q0, q1, n);
    return std::make_pair(e.first, e.second - e.first);
  };
  if (nr >= 0) {
    for (int mask = 1; mask < f.pof2; mask <<= 1) {
      const int base = nr & ~(mask - 1), pbase = base ^ mask;  // aligned blocks of new ranks
      const auto own = elems(base, base + mask), theirs = elems(pbase, pbase + mask);
      Round &r = plan.new_round(ag);
      const int partner = f.real_rank(nr ^ mask);
      add_send(r, partner, out_range(own.first, own.second));
      add_recv(r, partner, out_range(theirs.first, theirs.second));
    }
  }
  f.unfold(plan, me, out_range(0, m), unfold_ph);
  return plan;
}

double model(const PlanRequest &req, const CostParams &c) {
  const PowerOfTwoFold f(req.size);
  const double n = double(req.count * req.type_size), q = f.pof2, fo = f.rem > 0 ? 1 : 0;
  const double m = n * req.size;
  return f.log2_pof2() * c.alpha + (q - 1) / q * c.beta * m + fo * (2 * c.alpha + c.beta * (m + n));
}

}  // namespace

const AlgorithmInfo &recursive_doubling_allgather_info() {
  static const AlgorithmInfo info = [] {
    AlgorithmInfo a;
    a.coll = Collective::allgather;
    a.name = "recursive_doubling";
    a.description = "recursive-doubling allgather, log2(P) steps; fold for non-power-of-two P";
    a.source = "Thakur, Rabenseifner, Gropp 2005 (MPICH)";
    a.build = build;
    a.model = model;
    a.model_exact = false;
    return a;
  }();
  return info;
}

}  // namespace pcoll
