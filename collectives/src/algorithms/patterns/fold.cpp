#include "fold.hpp"

#include <utility>
#include <vector>

namespace pcoll {

PowerOfTwoFold::PowerOfTwoFold(int p) : size(p) {
  while (pof2 * 2 <= p) pof2 *= 2;
  rem = p - pof2;
}

int PowerOfTwoFold::new_rank(int member) const {
  if (member < 2 * rem) return (member % 2 == 0) ? -1 : member / 2;
  return member - rem;
}

int PowerOfTwoFold::real_rank(int nr) const {
  return nr < rem ? 2 * nr + 1 : nr + rem;
}

int PowerOfTwoFold::log2_pof2() const {
  int l = 0;
  while ((1 << l) < pof2) ++l;
  return l;
}

void PowerOfTwoFold::fold(Plan &plan, int member, Range work, Range scratch, int phase,
                          RankMap map) const {
  if (rem == 0 || work.len == 0) return;
  Round &r = plan.new_round(phase);  // empty for members outside the fold: the same step
  if (member >= 2 * rem) return;
  if (member % 2 == 0) {
    add_send(r, map(member + 1), work);
  } else {
    const int rv = add_recv(r, map(member - 1), scratch);
    add_reduce(r, scratch, work, /*src_is_left=*/true, rv);
  }
}

void PowerOfTwoFold::unfold(Plan &plan, int member, Range result, int phase, RankMap map) const {
  if (rem == 0 || result.len == 0) return;
  Round &r = plan.new_round(phase);
  if (member >= 2 * rem) return;
  if (member % 2 == 0)
    add_recv(r, map(member + 1), result);
  else
    add_send(r, map(member - 1), result);
}

namespace {

// The block ranges [lo, hi) new rank nr holds before each halving step, and after the last.
std::vector<std::pair<std::size_t, std::size_t>> halving_ranges(const PowerOfTwoFold &f, int nr) {
  std::vector<std::pair<std::size_t, std::size_t>> v;
  std::size_t lo = 0, hi = static_cast<std::size_t>(f.pof2);
  v.emplace_back(lo, hi);
  for (int mask = 1; mask < f.pof2; mask <<= 1) {
    const std::size_t mid = lo + (hi - lo) / 2;
    if ((nr & mask) != 0)
      lo = mid;
    else
      hi = mid;
    v.emplace_back(lo, hi);
  }
  return v;
}

}  // namespace

void halving_reduce_scatter(Plan &plan, const PowerOfTwoFold &f, int nr, Range work, Range scratch,
                            int phase, RankMap map) {
  const BlockSplit blocks{work.len, static_cast<std::size_t>(f.pof2)};
  auto elems = [&](std::size_t lo, std::size_t hi) {  // element range of blocks [lo, hi)
    return std::make_pair(blocks.offset(lo), blocks.offset(hi) - blocks.offset(lo));
  };
  std::size_t lo = 0, hi = static_cast<std::size_t>(f.pof2);
  for (int mask = 1; mask < f.pof2; mask <<= 1) {
    const int pnr = nr ^ mask, partner = map(f.real_rank(pnr));
    const std::size_t mid = lo + (hi - lo) / 2;
    const bool upper = (nr & mask) != 0;
    const auto send = upper ? elems(lo, mid) : elems(mid, hi);
    const auto keep = upper ? elems(mid, hi) : elems(lo, mid);
    Round &r = plan.new_round(phase);
    add_send(r, partner, sub(work, send.first, send.second));
    const int rv = add_recv(r, partner, sub(scratch, keep.first, keep.second));
    add_reduce(r, sub(scratch, keep.first, keep.second), sub(work, keep.first, keep.second),
               /*src_is_left=*/pnr < nr, rv);
    if (upper)
      lo = mid;
    else
      hi = mid;
  }
}

void doubling_allgather(Plan &plan, const PowerOfTwoFold &f, int nr, Range work, int phase,
                        RankMap map) {
  const BlockSplit blocks{work.len, static_cast<std::size_t>(f.pof2)};
  auto elems = [&](std::size_t lo, std::size_t hi) {
    return std::make_pair(blocks.offset(lo), blocks.offset(hi) - blocks.offset(lo));
  };
  auto held = halving_ranges(f, nr);
  // Undo the halvings in reverse order; the partner owns the sibling half of the parent range.
  for (int mask = f.pof2 / 2; mask >= 1; mask >>= 1) {
    const int partner = map(f.real_rank(nr ^ mask));
    const auto [lo, hi] = held.back();
    held.pop_back();
    const auto parent = held.back();
    const auto mine = elems(lo, hi);
    const std::size_t mid = parent.first + (parent.second - parent.first) / 2;
    const bool upper = lo == mid;
    const auto theirs = upper ? elems(parent.first, mid) : elems(mid, parent.second);
    Round &r = plan.new_round(phase);
    add_send(r, partner, sub(work, mine.first, mine.second));
    add_recv(r, partner, sub(work, theirs.first, theirs.second));
  }
}

void butterfly_allreduce(Plan &plan, const PowerOfTwoFold &f, int nr, Range work, Range scratch,
                         int phase, RankMap map) {
  const Range in = sub(scratch, 0, work.len);
  for (int mask = 1; mask < f.pof2; mask <<= 1) {
    const int pnr = nr ^ mask, partner = map(f.real_rank(pnr));
    Round &r = plan.new_round(phase);
    add_send(r, partner, work);
    const int rv = add_recv(r, partner, in);
    add_reduce(r, in, work, /*src_is_left=*/pnr < nr, rv);
  }
}

}  // namespace pcoll
