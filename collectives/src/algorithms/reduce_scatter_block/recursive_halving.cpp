// recursive_halving: reduce-scatter by recursive halving (Thakur, Rabenseifner, Gropp 2005,
// Sec. 3.3; the first half of rabenseifner). A rank count that is not a power of two is folded
// first (../patterns/fold.hpp): new rank q then stands for the blocks of real ranks
// [slot_lo(q), slot_hi(q)). In each step the current range of new ranks is halved, the half
// that belongs to the partner's side is sent to it (the most significant bit first, so every
// message is one contiguous range) and the received half is reduced. At the end the odd rank of
// a folded pair sends the even rank its block.
//
// With PlanRequest::layout the same schedule over blocks of any length
// (reduce_scatter/recursive_halving.cpp, which shares this builder; ../patterns/vblocks.hpp).
//
// Restrictions: commutative op (halving from the top bit pairs ranks P'/2 apart).
// Cost (n = bytes per block, P' the largest power of two <= P, f = 1 if P != P'):
//   T = log2 P' alpha + (P'-1)/P' beta n P + f (2 alpha + beta n (P + 1)) + gammas.
// Temporary: (2 P) n bytes.
#include "../../registry.hpp"
#include "../patterns/fold.hpp"
#include "../patterns/vblocks.hpp"

namespace pcoll {
namespace {

Plan build(const PlanRequest &req) {
  Plan plan;
  const int fold_ph = plan.phase_index("fold"), rs = plan.phase_index("reduce_scatter"),
            unfold_ph = plan.phase_index("unfold");
  const int P = req.size, me = req.rank;
  const VBlocks b(req);
  const std::size_t N = b.total();
  plan.in_elems = N;
  plan.out_elems = b.len_of(me);
  if (N == 0) return plan;
  if (P == 1) {
    add_copy(plan.new_round(rs), in_range(0, N), out_range(0, N));
    return plan;
  }
  plan.tmp_elems = 2 * N;  // working vector, then receive space
  add_copy(plan.new_round(fold_ph), in_range(0, N), tmp_range(0, N));
  const PowerOfTwoFold f(P);
  f.fold(plan, me, tmp_range(0, N), tmp_range(N, N), fold_ph);
  // Packed range [first, second) of the blocks of new ranks [q0, q1).
  auto elems = [&](int q0, int q1) {
    const auto s = b.span(slot_lo(f, q0), slot_hi(f, q1 - 1));
    return std::make_pair(s.first, s.first + s.second);
  };
  f.run(plan, me, rs, [&](Plan &pl, int nr) {
    int lo = 0, hi = f.pof2;
    while (hi - lo > 1) {
      const int half = (hi - lo) / 2;
      const bool upper = nr >= lo + half;
      const int partner = f.real_rank(upper ? nr - half : nr + half);
      const auto give = upper ? elems(lo, lo + half) : elems(lo + half, hi);
      const auto keep = upper ? elems(lo + half, hi) : elems(lo, lo + half);
      Round &r = pl.new_round(rs);
      if (give.second > give.first)
        add_send(r, partner, tmp_range(give.first, give.second - give.first));
      if (keep.second > keep.first) {
        const Range slot = tmp_range(N + keep.first, keep.second - keep.first);
        const int rv = add_recv(r, partner, slot);
        add_reduce(r, slot, tmp_range(keep.first, keep.second - keep.first), upper, rv);
      }
      if (upper)
        lo += half;
      else
        hi = lo + half;
    }
  });
  Round &fin = plan.new_round(unfold_ph);
  const std::size_t n = b.len_of(me);
  const std::size_t mine = b.packed[static_cast<std::size_t>(me)];
  if (me < 2 * f.rem && me % 2 == 0) {
    if (n > 0) add_recv(fin, me + 1, out_range(0, n));
  } else {
    if (me < 2 * f.rem && b.len_of(me - 1) > 0)
      add_send(fin, me - 1,
               tmp_range(b.packed[static_cast<std::size_t>(me - 1)], b.len_of(me - 1)));
    if (n > 0) add_copy(fin, tmp_range(mine, n), out_range(0, n));
  }
  return plan;
}

double model(const PlanRequest &req, const CostParams &c) {
  const PowerOfTwoFold f(req.size);
  const double n = double(req.count * req.type_size), q = f.pof2, fo = f.rem > 0 ? 1 : 0;
  const double m = n * req.size;
  return f.log2_pof2() * c.alpha + (q - 1) / q * (c.beta + c.gamma) * m +
         fo * (2 * c.alpha + c.beta * (m + n) + c.gamma * m);
}

}  // namespace

const AlgorithmInfo &recursive_halving_reduce_scatter_block_info() {
  static const AlgorithmInfo info = [] {
    AlgorithmInfo a;
    a.coll = Collective::reduce_scatter_block;
    a.name = "recursive_halving";
    a.description = "recursive-halving reduce-scatter, log2(P) steps; fold for non-power-of-two P";
    a.source = "Thakur, Rabenseifner, Gropp 2005 (MPICH)";
    a.restrictions.needs_commutative = true;
    a.build = build;
    a.model = model;
    a.model_exact = false;
    return a;
  }();
  return info;
}

}  // namespace pcoll
