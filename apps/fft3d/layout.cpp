// Stage layouts and transpose exchanges of the distributed FFT; see layout.hpp.
#include "layout.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>

namespace pcoll::fft3d {

const char *decomp_name(Decomp d) {
  return d == Decomp::slab ? "slab" : "pencil";
}

Range split(int len, int parts, int index) {
  const int base = len / parts, extra = len % parts;
  return Range{index * base + std::min(index, extra), base + (index < extra ? 1 : 0)};
}

std::int64_t Layout::stride(int axis) const {
  std::int64_t s = 1;
  for (int k = 2; k >= 0 && order[k] != axis; --k) s *= n[order[k]];
  return s;
}

bool Layout::contains(const std::array<int, 3> &g) const {
  for (int a = 0; a < 3; ++a)
    if (g[a] < lo[a] || g[a] >= lo[a] + n[a]) return false;
  return true;
}

std::int64_t Layout::index(const std::array<int, 3> &g) const {
  std::int64_t off = 0;
  for (int a = 0; a < 3; ++a) off += (g[a] - lo[a]) * stride(a);
  return off;
}

namespace {

Layout box(Range r0, Range r1, Range r2, std::array<int, 3> order) {
  Layout l;
  l.lo = {r0.lo, r1.lo, r2.lo};
  l.n = {r0.n, r1.n, r2.n};
  l.order = order;
  return l;
}

}  // namespace

StageLayouts stage_layouts(const std::array<int, 3> &grid, ProcGrid pg, Decomp d, int rank) {
  const Range all0{0, grid[0]}, all1{0, grid[1]}, all2{0, grid[2]};
  StageLayouts s;
  if (d == Decomp::slab) {
    const int p = pg.p0 * pg.p1;
    s.in = box(split(grid[0], p, rank), all1, all2, {0, 1, 2});
    s.mid = s.in;
    s.out = box(all0, split(grid[1], p, rank), all2, {0, 1, 2});
    return s;
  }
  const int r0 = rank / pg.p1, r1 = rank % pg.p1;
  s.in = box(split(grid[0], pg.p0, r0), split(grid[1], pg.p1, r1), all2, {0, 1, 2});
  s.mid = box(split(grid[0], pg.p0, r0), all1, split(grid[2], pg.p1, r1), {0, 1, 2});
  s.out = box(all0, split(grid[1], pg.p0, r0), split(grid[2], pg.p1, r1), {0, 1, 2});
  return s;
}

std::string check_grid(const std::array<int, 3> &grid, ProcGrid pg, Decomp d) {
  const std::string g =
      std::to_string(grid[0]) + "x" + std::to_string(grid[1]) + "x" + std::to_string(grid[2]);
  for (int a = 0; a < 3; ++a)
    if (grid[a] < 1) return "grid " + g + ": every size must be positive";
  if (d == Decomp::slab) {
    const int p = pg.p0 * pg.p1;
    if (grid[0] < p || grid[1] < p)
      return "grid " + g + " is smaller than the slab process grid of " + std::to_string(p) +
             " ranks: slabs need N0 >= P and N1 >= P";
    return "";
  }
  const std::string pgs = std::to_string(pg.p0) + "x" + std::to_string(pg.p1);
  if (grid[0] < pg.p0 || grid[1] < pg.p0 || grid[1] < pg.p1 || grid[2] < pg.p1)
    return "grid " + g + " is smaller than the pencil process grid " + pgs +
           ": pencils need N0 >= p0, N1 >= max(p0, p1), N2 >= p1";
  return "";
}

Exchange plan_exchange(const std::vector<Layout> &from, const std::vector<Layout> &to, int me) {
  auto meet = [](const Layout &a, const Layout &b) {
    Block k;
    for (int ax = 0; ax < 3; ++ax) {
      const int lo = std::max(a.lo[ax], b.lo[ax]);
      const int hi = std::min(a.lo[ax] + a.n[ax], b.lo[ax] + b.n[ax]);
      k.lo[ax] = lo;
      k.n[ax] = std::max(0, hi - lo);
    }
    if (k.volume() == 0) k.n = {0, 0, 0};
    return k;
  };
  const int q = static_cast<int>(from.size());
  Exchange x;
  for (int j = 0; j < q; ++j) {
    x.send.push_back(meet(from[me], to[j]));
    x.recv.push_back(meet(from[j], to[me]));
    x.sdispl.push_back(x.send_total);
    x.rdispl.push_back(x.recv_total);
    x.send_total += x.send.back().volume();
    x.recv_total += x.recv.back().volume();
  }
  // Alltoall or Alltoallv must be the same choice on every member, so it is decided from the
  // blocks between all members, which each member computes alike from the layouts of all.
  const BlockRange r = block_range(from, to);
  x.even = r.min == r.max;
  return x;
}

BlockRange block_range(const std::vector<Layout> &from, const std::vector<Layout> &to) {
  BlockRange r{1, 1};
  for (int a = 0; a < 3; ++a) {
    int from_min = INT32_MAX, from_max = 0, to_min = INT32_MAX, to_max = 0;
    for (const Layout &l : from) {
      from_min = std::min(from_min, l.n[a]);
      from_max = std::max(from_max, l.n[a]);
    }
    for (const Layout &l : to) {
      to_min = std::min(to_min, l.n[a]);
      to_max = std::max(to_max, l.n[a]);
    }
    r.min *= std::min(from_min, to_min);
    r.max *= std::min(from_max, to_max);
  }
  return r;
}

bool in_place_blocks(const std::vector<Block> &blocks, const std::vector<std::int64_t> &displ,
                     const std::array<int, 3> &order, const Layout &field) {
  if (order != field.order) return false;
  for (std::size_t j = 0; j < blocks.size(); ++j) {
    const Block &b = blocks[j];
    if (b.volume() == 0) continue;
    // Row-major contiguity: full extent on the fastest axes, then one partial axis, then
    // extent 1 on every slower axis.
    int k = 2;
    while (k > 0 && b.n[order[k]] == field.n[order[k]]) --k;
    for (int slower = k - 1; slower >= 0; --slower)
      if (b.n[order[slower]] != 1) return false;
    if (field.index(b.lo) != displ[j]) return false;
  }
  return true;
}

BlockCopy block_copy(const Block &b, const std::array<int, 3> &order, const Layout &field) {
  BlockCopy c{};
  c.field_offset = b.volume() ? field.index(b.lo) : 0;
  for (int k = 0; k < 3; ++k) {
    c.extent[k] = b.n[order[k]];
    c.field_stride[k] = field.stride(order[k]);
  }
  return c;
}

double fft_flops(const std::array<int, 3> &grid) {
  const double n = double(grid[0]) * grid[1] * grid[2];
  return 5.0 * n * std::log2(n);
}

}  // namespace pcoll::fft3d
