#include "swing.hpp"

#include <algorithm>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "bine.hpp"

namespace pcoll {
namespace {

// The block tree of Q = 2^L new ranks with the grid's peers: start[t][x] = the first leaf
// position of R(x, t), the new ranks x reaches through the steps t..L-1 (R(x, L) = {x},
// R(x, t) = R(x, t+1) u R(peer(x, t), t+1); it spans 2^(L-t) consecutive positions), leaf
// order depth-first, the child holding the smaller rank first. These sets form one binary tree
// over all new ranks (each R(x, t) is the disjoint union of two sets of level t+1, and partners
// share theirs; on a grid of several dimensions each set is the product of its dimensions'
// sets), so every set a step sends is one contiguous range.
std::vector<std::vector<int>> block_tree(const SwingGrid &g, int L) {
  const int q = g.q;
  std::vector<std::vector<int>> lo(static_cast<std::size_t>(L) + 1, std::vector<int>(q));
  for (int x = 0; x < q; ++x) lo[static_cast<std::size_t>(L)][static_cast<std::size_t>(x)] = x;
  for (int t = L - 1; t >= 0; --t)
    for (int x = 0; x < q; ++x)
      lo[static_cast<std::size_t>(t)][static_cast<std::size_t>(x)] =
          std::min(lo[static_cast<std::size_t>(t) + 1][static_cast<std::size_t>(x)],
                   lo[static_cast<std::size_t>(t) + 1][static_cast<std::size_t>(g.peer(x, t))]);
  // Top-down: a set at level t starting at position p puts the child with the smaller least
  // rank at p, the other at p + 2^(L-t-1).
  std::vector<std::vector<int>> start(static_cast<std::size_t>(L) + 1, std::vector<int>(q, 0));
  for (int t = 0; t < L; ++t)
    for (int x = 0; x < q; ++x) {
      const auto T = static_cast<std::size_t>(t);
      const int y = g.peer(x, t);
      const bool first = lo[T + 1][static_cast<std::size_t>(x)] < lo[T + 1][static_cast<std::size_t>(y)];
      start[T + 1][static_cast<std::size_t>(x)] =
          start[T][static_cast<std::size_t>(x)] + (first ? 0 : 1 << (L - t - 1));
    }
  return start;
}

// The tree depends on the grid alone (Q, its dimensions, the first one, the mirror) and costs
// O(Q log Q); every rank of a call needs it, and the cost model builds every rank's plan (P
// plans: O(P^2 log P) without this), so the last trees are kept, read-only, behind a lock
// (enough for the 2 dims grids of a multiport call).
using BlockTree = std::shared_ptr<const std::vector<std::vector<int>>>;
BlockTree shared_block_tree(const SwingGrid &g, int L) {
  static std::mutex lock;
  using Key = std::pair<std::pair<int, int>, std::pair<int, bool>>;  // q, dims, first, mirrored
  static std::vector<std::pair<Key, BlockTree>> kept;
  const Key key{{g.q, static_cast<int>(g.sides.size())}, {g.first, g.mirrored}};
  const std::lock_guard<std::mutex> hold(lock);
  for (const auto &[k, tree] : kept)
    if (k == key) return tree;
  auto tree = std::make_shared<const std::vector<std::vector<int>>>(block_tree(g, L));
  if (kept.size() >= 40) kept.erase(kept.begin());
  kept.emplace_back(key, tree);
  return tree;
}

// Element range of R(x, t) in `work`: 2^(L-t) blocks from position start[t][x].
struct SwingBlocks {
  BlockTree start;
  int L;
  BlockSplit blocks;
  Range work;
  SwingBlocks(const PowerOfTwoFold &f, const SwingGrid &g, Range w)
      : start(shared_block_tree(g, f.log2_pof2())),
        L(f.log2_pof2()),
        blocks{w.len, static_cast<std::size_t>(f.pof2)},
        work(w) {}
  Range of(int x, int t) const {
    const auto p = static_cast<std::size_t>((*start)[static_cast<std::size_t>(t)][static_cast<std::size_t>(x)]);
    const std::size_t e = p + (std::size_t{1} << (L - t));
    return sub(work, blocks.offset(p), blocks.offset(e) - blocks.offset(p));
  }
};

// One part of the multiport version: its grid, the blocks of its range of `work`, and that
// range of `scratch`. The parts are cut in units of q = f.pof2 elements (the last one takes the
// n mod q left over), so where q divides n every part's blocks are equal and a rank sends
// exactly 2 (q-1)/q x n in all, as with one part; elsewhere only the last part's blocks round.
struct SwingPart {
  SwingGrid g;
  SwingBlocks b;
  Range scratch;
};
std::vector<SwingPart> parts_of(const PowerOfTwoFold &f, Range work, Range scratch, int dims,
                                int parts) {
  std::vector<SwingPart> out;
  const auto q = static_cast<std::size_t>(f.pof2);
  const BlockSplit units{work.len / q, static_cast<std::size_t>(parts)};  // >= 1 unit each
  for (int c = 0; c < parts; ++c) {
    const auto C = static_cast<std::size_t>(c);
    const std::size_t len = units.length(C) * q + (c == parts - 1 ? work.len % q : 0);
    const Range w = sub(work, units.offset(C) * q, len);
    SwingGrid g(f.pof2, dims, c / 2 % dims, c % 2 == 1);
    SwingBlocks b(f, g, w);
    out.push_back({std::move(g), std::move(b), sub(scratch, w.off - work.off, w.len)});
  }
  return out;
}

// New rank v of the tree rooted at `root` is new rank (v + root) mod q; and back.
int shift(int v, int root, int q) { return (v + root) % q; }

}  // namespace

SwingGrid::SwingGrid(int q_, int dims, int first_, bool mirrored_)
    : q(q_), first(first_), mirrored(mirrored_) {
  int L = 0;
  while ((1 << L) < q) ++L;
  for (int i = 0; i < dims; ++i) sides.push_back(1 << (L / dims + (i < L % dims ? 1 : 0)));
  for (int j = 0; static_cast<int>(steps.size()) < L; ++j)
    for (int k = 0; k < dims; ++k) {
      const int i = (first + k) % dims;
      if ((1 << j) < sides[static_cast<std::size_t>(i)]) steps.emplace_back(i, j);
    }
}

int SwingGrid::peer(int x, int s) const {
  if (sides.size() == 1 && !mirrored) return bine::peer(x, s, q);
  const auto [dim, j] = steps[static_cast<std::size_t>(s)];
  int stride = 1;
  for (int i = 0; i < dim; ++i) stride *= sides[static_cast<std::size_t>(i)];
  const int d = sides[static_cast<std::size_t>(dim)], c = x / stride % d;
  // Mirrored: the peer of -c, negated (d is a power of two: c and -c have the same parity).
  const int p = mirrored ? (d - bine::peer((d - c) % d, j, d)) % d : bine::peer(c, j, d);
  return x + (p - c) * stride;
}

int swing_parts(std::size_t len, int q, int parts) {
  const auto most = static_cast<int>(
      std::min<std::size_t>(len / static_cast<std::size_t>(q), static_cast<std::size_t>(parts)));
  return std::max(most, 1);
}

std::string SwingGrid::shape() const {
  std::string s;
  for (int d : sides) s += (s.empty() ? "" : "x") + std::to_string(d);
  return s;
}

void swing_reduce_scatter(Plan &plan, const PowerOfTwoFold &f, int nr, Range work, Range scratch,
                          int phase, RankMap map, int dims, int parts) {
  const std::vector<SwingPart> ps = parts_of(f, work, scratch, dims, parts);
  for (int s = 0; s < f.log2_pof2(); ++s) {
    Round &r = plan.new_round(phase);
    for (const SwingPart &p : ps) {
      const int pr = p.g.peer(nr, s), partner = map(f.real_rank(pr));
      const Range send = p.b.of(pr, s + 1), keep = p.b.of(nr, s + 1);
      const Range in = sub(p.scratch, keep.off - p.b.work.off, keep.len);
      add_send(r, partner, send);
      const int rv = add_recv(r, partner, in);
      add_reduce(r, in, keep, /*src_is_left=*/pr < nr, rv);
    }
  }
}

void swing_allgather(Plan &plan, const PowerOfTwoFold &f, int nr, Range work, int phase,
                     RankMap map, int dims, int parts) {
  const std::vector<SwingPart> ps = parts_of(f, work, work, dims, parts);
  for (int s = f.log2_pof2() - 1; s >= 0; --s) {
    Round &r = plan.new_round(phase);
    for (const SwingPart &p : ps) {
      const int pr = p.g.peer(nr, s), partner = map(f.real_rank(pr));
      add_send(r, partner, p.b.of(nr, s + 1));
      add_recv(r, partner, p.b.of(pr, s + 1));
    }
  }
}

void bine_reduce(Plan &plan, const PowerOfTwoFold &f, int nr, int root, Range work, Range scratch,
                 int phase, RankMap map) {
  const int q = f.pof2;
  const bine::TreeNode node = bine::tree_node((nr - root + q) % q, q);
  // Up the tree: the children's partial results, the smallest subtree first (the reverse of
  // the broadcast's order), reduced as each arrives; then the own one to the parent.
  for (auto c = node.children.rbegin(); c != node.children.rend(); ++c) {
    Round &r = plan.new_round(phase);
    const int rv = add_recv(r, map(f.real_rank(shift(*c, root, q))), scratch);
    add_reduce(r, scratch, work, /*src_is_left=*/false, rv);
  }
  if (node.parent >= 0) {
    add_send(plan.new_round(phase), map(f.real_rank(shift(node.parent, root, q))), work);
    plan.idle(phase, bine::wait_steps(node, q));  // the steps left, to the root's last receive
  }
}

void bine_bcast(Plan &plan, const PowerOfTwoFold &f, int nr, int root, Range work, int phase,
                RankMap map) {
  const int q = f.pof2;
  const bine::TreeNode node = bine::tree_node((nr - root + q) % q, q);
  if (node.parent >= 0) {
    plan.idle(phase, bine::wait_steps(node, q));
    add_recv(plan.new_round(phase), map(f.real_rank(shift(node.parent, root, q))), work);
  }
  for (int c : node.children)
    add_send(plan.new_round(phase), map(f.real_rank(shift(c, root, q))), work);
}

}  // namespace pcoll
