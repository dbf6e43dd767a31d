// The FFT's decomposition logic and pack/unpack kernels without MPI: every transpose of the slab
// and pencil decompositions is run in memory for P = 1..9 and every process grid p0 x p1 = P, on
// grids that divide evenly and grids that do not, and every element must land exactly where the
// next layout says (values encode their global index, so a misplaced element is seen).
#include <catch2/catch.hpp>

#include <pcoll/kernels/fft_pack.hpp>

#include <algorithm>
#include <complex>
#include <cstring>
#include <vector>

#include "layout.hpp"
#include "pack.hpp"

using namespace pcoll::fft3d;
using C = std::complex<double>;

namespace {

using Grid = std::array<int, 3>;
long in_place_count = 0;  // transposes where the transform skips a pack or an unpack

// Exact in double for these sizes: a misplaced element never compares equal.
C code(const Grid &g, const Grid &n) {
  const double i = (double(g[0]) * n[1] + g[1]) * n[2] + g[2];
  return C(i, -0.5 - i);
}

// Every element of rank r's buffer, laid out as l, holds code(global index)?
bool holds_codes(const std::vector<C> &buf, const Layout &l, const Grid &n) {
  bool ok = true;
  Grid g;
  for (g[0] = l.lo[0]; g[0] < l.lo[0] + l.n[0]; ++g[0])
    for (g[1] = l.lo[1]; g[1] < l.lo[1] + l.n[1]; ++g[1])
      for (g[2] = l.lo[2]; g[2] < l.lo[2] + l.n[2]; ++g[2])
        ok = ok && buf[l.index(g)] == code(g, n);
  return ok;
}

// One transpose of every group (sub-communicator: its members' global ranks in member order),
// MPI_Alltoallv done by copying each sender's block into each receiver's buffer.
void transpose_in_memory(std::vector<std::vector<C>> &field, const std::vector<Layout> &from_all,
                         const std::vector<Layout> &to_all,
                         const std::vector<std::vector<int>> &groups) {
  std::int64_t smallest = INT64_MAX, largest = 0;  // over the blocks of every group
  for (const auto &members : groups) {
    const int q = static_cast<int>(members.size());
    std::vector<Layout> from, to;
    for (int r : members) {
      from.push_back(from_all[r]);
      to.push_back(to_all[r]);
    }
    std::vector<Exchange> x;
    std::vector<std::vector<C>> send(q), recv(q);
    for (int m = 0; m < q; ++m) {
      x.push_back(plan_exchange(from, to, m));
      send[m].resize(x[m].send_total);
      pack_exchange(x[m], from[m], field[members[m]].data(), send[m].data());
      // Where the transform skips the pack, the packed message must equal the field itself.
      if (in_place_blocks(x[m].send, x[m].sdispl, from[m].order, from[m])) {
        ++in_place_count;
        REQUIRE(std::equal(send[m].begin(), send[m].end(), field[members[m]].begin()));
      }
    }
    bool all_same = true;
    for (int m = 0; m < q; ++m) {
      recv[m].resize(x[m].recv_total);
      for (int j = 0; j < q; ++j) {
        // What j sends m is what m expects from j.
        REQUIRE(x[j].send[m].lo == x[m].recv[j].lo);
        REQUIRE(x[j].send[m].n == x[m].recv[j].n);
        all_same = all_same && x[j].send[m].volume() == x[0].send[0].volume();
        smallest = std::min(smallest, x[j].send[m].volume());
        largest = std::max(largest, x[j].send[m].volume());
        std::copy_n(send[j].begin() + x[j].sdispl[m], x[j].send[m].volume(),
                    recv[m].begin() + x[m].rdispl[j]);
      }
    }
    for (int m = 0; m < q; ++m) {
      REQUIRE(x[m].even == all_same);  // every member makes the same Alltoall/Alltoallv choice
      std::vector<C> next(std::max(field[members[m]].size(), std::size_t(to[m].volume())));
      unpack_exchange(x[m], from[m].order, to[m], recv[m].data(), next.data());
      // Where the transform skips the unpack, the message must already be the next field.
      if (in_place_blocks(x[m].recv, x[m].rdispl, from[m].order, to[m])) {
        ++in_place_count;
        REQUIRE(std::equal(next.begin(), next.begin() + to[m].volume(), recv[m].begin()));
      }
      field[members[m]] = std::move(next);
    }
  }
  // The O(P) block range (bytes per destination in the reports) is exact.
  const BlockRange r = block_range(from_all, to_all);
  REQUIRE(r.min == smallest);
  REQUIRE(r.max == largest);
}

}  // namespace

TEST_CASE("split covers an axis with balanced, contiguous, non-empty parts") {
  for (int len = 1; len <= 40; ++len)
    for (int parts = 1; parts <= std::min(len, 9); ++parts) {
      int next = 0;
      for (int i = 0; i < parts; ++i) {
        const Range r = split(len, parts, i);
        REQUIRE(r.lo == next);
        REQUIRE((r.n == len / parts || r.n == len / parts + 1));
        next += r.n;
      }
      REQUIRE(next == len);
    }
}

TEST_CASE("check_grid rejects grids smaller than the process grid, naming the sizes") {
  CHECK(check_grid({8, 8, 8}, {8, 1}, Decomp::slab).empty());
  CHECK(check_grid({7, 8, 8}, {8, 1}, Decomp::slab).find("smaller than the slab") !=
        std::string::npos);
  CHECK(check_grid({8, 3, 8}, {4, 1}, Decomp::slab).find("N1 >= P") != std::string::npos);
  CHECK(check_grid({4, 4, 2}, {4, 2}, Decomp::pencil).empty());
  CHECK(check_grid({4, 4, 1}, {4, 2}, Decomp::pencil).find("4x2") != std::string::npos);
  CHECK(check_grid({0, 4, 4}, {1, 1}, Decomp::slab).find("positive") != std::string::npos);
  CHECK(check_grid({4, -1, 4}, {1, 1}, Decomp::pencil).find("positive") != std::string::npos);
}

TEST_CASE("the pack kernel copies a strided block exactly, transposing through strides") {
  // A 2 x 3 x 4 row-major array; copy the block [1,2) x [0,3) x [1,4) transposed into (c, b).
  std::vector<pcoll::kernels::Complex> a(24), out(9);
  for (int i = 0; i < 24; ++i) a[i] = pcoll::kernels::Complex(i, -i);
  const std::int64_t extent[3] = {1, 3, 3};
  pcoll::kernels::Strided3 src{12 + 1, {12, 4, 1}}, dst{0, {9, 1, 3}};
  pcoll::kernels::fft_unpack(a.data(), src, out.data(), dst, extent);
  for (int b = 0; b < 3; ++b)
    for (int c = 0; c < 3; ++c) REQUIRE(out[c * 3 + b] == a[12 + b * 4 + 1 + c]);
}

TEST_CASE("every transpose puts every element where the next layout wants it") {
  const std::vector<Grid> grids = {{12, 10, 9}, {16, 16, 16}, {9, 8, 7}, {13, 11, 10}};
  int cases = 0;
  for (int p = 1; p <= 9; ++p)
    for (const Grid &n : grids)
      for (int p1 = 1; p1 <= p; ++p1) {
        if (p % p1) continue;
        const ProcGrid pg{p / p1, p1};
        for (Decomp d : {Decomp::slab, Decomp::pencil}) {
          if (d == Decomp::slab && p1 != 1) continue;
          INFO("P=" << p << " grid " << n[0] << "x" << n[1] << "x" << n[2] << " pg " << pg.p0 << "x"
                    << pg.p1 << " " << decomp_name(d));
          // Accepted exactly when every rank owns a non-empty box at every stage (a few pencil
          // grids like 1x8 on 9x8x7 are not: N2 = 7 < p1); those are checked to be rejected.
          const bool fits = d == Decomp::slab
                                ? n[0] >= p && n[1] >= p
                                : n[0] >= pg.p0 && n[1] >= std::max(pg.p0, pg.p1) && n[2] >= pg.p1;
          REQUIRE(check_grid(n, pg, d).empty() == fits);
          if (!fits) continue;
          std::vector<Layout> in, mid, out;
          std::vector<std::vector<C>> field(p);
          for (int r = 0; r < p; ++r) {
            const StageLayouts s = stage_layouts(n, pg, d, r);
            in.push_back(s.in);
            mid.push_back(s.mid);
            out.push_back(s.out);
            field[r].assign(s.in.volume(), C(-1, -1));
            Grid g;
            for (g[0] = s.in.lo[0]; g[0] < s.in.lo[0] + s.in.n[0]; ++g[0])
              for (g[1] = s.in.lo[1]; g[1] < s.in.lo[1] + s.in.n[1]; ++g[1])
                for (g[2] = s.in.lo[2]; g[2] < s.in.lo[2] + s.in.n[2]; ++g[2])
                  field[r][s.in.index(g)] = code(g, n);
          }
          std::vector<std::vector<int>> all(1), rows(pg.p0), cols(pg.p1);
          for (int r = 0; r < p; ++r) {
            all[0].push_back(r);
            rows[r / pg.p1].push_back(r);
            cols[r % pg.p1].push_back(r);
          }
          if (d == Decomp::slab) {
            transpose_in_memory(field, in, out, all);
          } else {
            transpose_in_memory(field, in, mid, rows);
            for (int r = 0; r < p; ++r) REQUIRE(holds_codes(field[r], mid[r], n));
            transpose_in_memory(field, mid, out, cols);
          }
          for (int r = 0; r < p; ++r) REQUIRE(holds_codes(field[r], out[r], n));
          // ... and the backward transposes bring every element home.
          if (d == Decomp::slab) {
            transpose_in_memory(field, out, in, all);
          } else {
            transpose_in_memory(field, out, mid, cols);
            transpose_in_memory(field, mid, in, rows);
          }
          for (int r = 0; r < p; ++r) REQUIRE(holds_codes(field[r], in[r], n));
          ++cases;
        }
      }
  CHECK(cases > 100);
  CHECK(in_place_count > 100);  // the forward unpacks and backward packs into/out of the output
}

TEST_CASE("the output layouts tile the grid: every frequency on exactly one rank") {
  const Grid n{12, 10, 9};
  for (int p = 1; p <= 9; ++p)
    for (Decomp d : {Decomp::slab, Decomp::pencil}) {
      ProcGrid pg{p, 1};
      if (d == Decomp::pencil)
        for (int p1 = 1; p1 * p1 <= p; ++p1)
          if (p % p1 == 0) pg = {p / p1, p1};
      std::vector<int> owners(static_cast<std::size_t>(n[0]) * n[1] * n[2], 0);
      for (int r = 0; r < p; ++r) {
        const Layout l = stage_layouts(n, pg, d, r).out;
        Grid g;
        for (g[0] = 0; g[0] < n[0]; ++g[0])
          for (g[1] = 0; g[1] < n[1]; ++g[1])
            for (g[2] = 0; g[2] < n[2]; ++g[2])
              if (l.contains(g)) ++owners[(g[0] * n[1] + g[1]) * n[2] + g[2]];
      }
      for (int o : owners) REQUIRE(o == 1);
    }
}

TEST_CASE("fft_flops is 5 N log2 N") {
  CHECK(fft_flops({16, 16, 16}) == Approx(5.0 * 4096 * 12));
  CHECK(fft_flops({1, 1, 1}) == 0.0);
}
