// recursive_doubling: allgather by recursive doubling (Thakur, Rabenseifner, Gropp 2005,
// Sec. 3.1; the second half of rabenseifner). With the power-of-two fold, the even rank of a
// folded pair first hands its block to the odd one, new rank q then owns the blocks of real ranks
// [slot_lo(q), slot_hi(q)); in step s new ranks q and q xor 2^s exchange the (contiguous) ranges
// they own, doubling them; at the end the odd rank sends the whole vector to its even partner.
//
// With PlanRequest::layout the same schedule over blocks of any length and displacements
// (allgatherv/recursive_doubling.cpp, which shares this builder; ../patterns/vblocks.hpp).
//
// Restrictions: none.
// Cost (n = bytes per block, P' the largest power of two <= P, f = 1 if P != P'):
//   T = log2 P' alpha + (P'-1)/P' beta n P + f (2 alpha + beta n (P + 1)). Temporary: none.
#include "../../registry.hpp"
#include "../patterns/fold.hpp"
#include "../patterns/vblocks.hpp"

namespace pcoll {
namespace {

Plan build(const PlanRequest &req) {
  Plan plan;
  const int fold_ph = plan.phase_index("fold"), ag = plan.phase_index("allgather"),
            unfold_ph = plan.phase_index("unfold");
  const int P = req.size, me = req.rank;
  const VBlocks b(req);
  plan.in_elems = b.in_off + b.in_len;
  plan.out_elems = b.out_extent();
  const std::size_t N = b.total();
  if (N == 0) return plan;
  // The packed vector: the output when displs are the packed order, else temporary space.
  const bool direct = b.in_order;
  if (!direct) plan.tmp_elems = N;
  auto work = [&](std::size_t off, std::size_t len) {
    return direct ? out_range(off, len) : tmp_range(off, len);
  };
  const std::size_t mine = b.packed[static_cast<std::size_t>(me)], n = b.len_of(me);
  Round &start = plan.new_round(fold_ph);  // on every rank, empty for an empty block (Round::step)
  if (n > 0) add_copy(start, in_range(b.in_off, n), work(mine, n));
  const PowerOfTwoFold f(P);
  if (f.rem > 0) {
    Round &r = plan.new_round(fold_ph);  // empty outside the fold: the same step (Round::step)
    const bool folds = me < 2 * f.rem;
    if (folds && me % 2 == 0 && n > 0) add_send(r, me + 1, work(mine, n));
    if (folds && me % 2 == 1 && b.len_of(me - 1) > 0)
      add_recv(r, me - 1, work(b.packed[static_cast<std::size_t>(me - 1)], b.len_of(me - 1)));
  }
  f.run(plan, me, ag, [&](Plan &pl, int nr) {
    for (int mask = 1; mask < f.pof2; mask <<= 1) {
      const int base = nr & ~(mask - 1), pbase = base ^ mask;  // aligned blocks of new ranks
      const auto own = b.span(slot_lo(f, base), slot_hi(f, base + mask - 1));
      const auto theirs = b.span(slot_lo(f, pbase), slot_hi(f, pbase + mask - 1));
      Round &r = pl.new_round(ag);
      const int partner = f.real_rank(nr ^ mask);
      if (own.second > 0) add_send(r, partner, work(own.first, own.second));
      if (theirs.second > 0) add_recv(r, partner, work(theirs.first, theirs.second));
    }
  });
  f.unfold(plan, me, work(0, N), unfold_ph);
  if (!direct) {
    Round &r = plan.new_round(unfold_ph);
    for (int q = 0; q < P; ++q)
      if (b.len_of(q) > 0)
        add_copy(r, tmp_range(b.packed[static_cast<std::size_t>(q)], b.len_of(q)),
                 out_range(b.at_of(q), b.len_of(q)));
  }
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
