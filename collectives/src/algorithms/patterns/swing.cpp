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

// The tree depends on Q and the grid's dimensions alone and costs O(Q log Q); every rank of a
// call needs it, and the cost model builds every rank's plan (P plans: O(P^2 log P) without
// this), so the last few trees are kept, read-only, behind a lock.
using BlockTree = std::shared_ptr<const std::vector<std::vector<int>>>;
BlockTree shared_block_tree(int q, int L, int dims) {
  static std::mutex lock;
  static std::vector<std::pair<std::pair<int, int>, BlockTree>> kept;  // (q, dims) -> tree
  const std::lock_guard<std::mutex> hold(lock);
  for (const auto &[k, tree] : kept)
    if (k == std::make_pair(q, dims)) return tree;
  auto tree = std::make_shared<const std::vector<std::vector<int>>>(block_tree(SwingGrid(q, dims), L));
  if (kept.size() >= 4) kept.erase(kept.begin());
  kept.emplace_back(std::make_pair(q, dims), tree);
  return tree;
}

// Element range of R(x, t) in `work`: 2^(L-t) blocks from position start[t][x].
struct SwingBlocks {
  BlockTree start;
  int L;
  BlockSplit blocks;
  Range work;
  SwingBlocks(const PowerOfTwoFold &f, Range w, int dims)
      : start(shared_block_tree(f.pof2, f.log2_pof2(), dims)),
        L(f.log2_pof2()),
        blocks{w.len, static_cast<std::size_t>(f.pof2)},
        work(w) {}
  Range of(int x, int t) const {
    const auto p = static_cast<std::size_t>((*start)[static_cast<std::size_t>(t)][static_cast<std::size_t>(x)]);
    const std::size_t e = p + (std::size_t{1} << (L - t));
    return sub(work, blocks.offset(p), blocks.offset(e) - blocks.offset(p));
  }
};

// New rank v of the tree rooted at `root` is new rank (v + root) mod q; and back.
int shift(int v, int root, int q) { return (v + root) % q; }

}  // namespace

SwingGrid::SwingGrid(int q_, int dims) : q(q_) {
  int L = 0;
  while ((1 << L) < q) ++L;
  for (int i = 0; i < dims; ++i) sides.push_back(1 << (L / dims + (i < L % dims ? 1 : 0)));
  for (int j = 0; static_cast<int>(steps.size()) < L; ++j)
    for (int i = 0; i < dims; ++i)
      if ((1 << j) < sides[static_cast<std::size_t>(i)]) steps.emplace_back(i, j);
}

int SwingGrid::peer(int x, int s) const {
  if (sides.size() == 1) return bine::peer(x, s, q);
  const auto [dim, j] = steps[static_cast<std::size_t>(s)];
  int stride = 1;
  for (int i = 0; i < dim; ++i) stride *= sides[static_cast<std::size_t>(i)];
  const int d = sides[static_cast<std::size_t>(dim)], c = x / stride % d;
  return x + (bine::peer(c, j, d) - c) * stride;
}

std::string SwingGrid::shape() const {
  std::string s;
  for (int d : sides) s += (s.empty() ? "" : "x") + std::to_string(d);
  return s;
}

void swing_reduce_scatter(Plan &plan, const PowerOfTwoFold &f, int nr, Range work, Range scratch,
                          int phase, RankMap map, int dims) {
  const SwingBlocks b(f, work, dims);
  const SwingGrid g(f.pof2, dims);
  for (int s = 0; s < b.L; ++s) {
    const int pr = g.peer(nr, s), partner = map(f.real_rank(pr));
    const Range send = b.of(pr, s + 1), keep = b.of(nr, s + 1);
    const Range in = sub(scratch, keep.off - work.off, keep.len);
    Round &r = plan.new_round(phase);
    add_send(r, partner, send);
    const int rv = add_recv(r, partner, in);
    add_reduce(r, in, keep, /*src_is_left=*/pr < nr, rv);
  }
}

void swing_allgather(Plan &plan, const PowerOfTwoFold &f, int nr, Range work, int phase,
                     RankMap map, int dims) {
  const SwingBlocks b(f, work, dims);
  const SwingGrid g(f.pof2, dims);
  for (int s = b.L - 1; s >= 0; --s) {
    const int pr = g.peer(nr, s), partner = map(f.real_rank(pr));
    Round &r = plan.new_round(phase);
    add_send(r, partner, b.of(nr, s + 1));
    add_recv(r, partner, b.of(pr, s + 1));
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
