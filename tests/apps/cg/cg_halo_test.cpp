// The decomposition and the halo exchange of apps/cg under mpiexec, on their own: the distributed
// stencil apply (halo exchange + kernel) must equal, bit for bit, the serial stencil apply on the
// whole global grid, for uneven splits, 1-thick subdomains (every rank one point thick along an
// axis, and along all three at once) and slab decompositions along each axis. Both sides evaluate
// the same expression on the same values, so any misplaced or missing ghost value shows.
#include <mpi.h>

#include <catch2/catch.hpp>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "grid.hpp"

using namespace pcoll::cg;
using pcoll::kernels::Box;
using pcoll::kernels::Field;

namespace {

double value_at(int gi, int gj, int gk) {
  std::uint64_t z =
      std::uint64_t(gi) * 73856093u ^ std::uint64_t(gj) * 19349663u ^ std::uint64_t(gk) * 83492791u;
  z = (z ^ (z >> 13)) * 0x9e3779b97f4a7c15ULL;
  return double(z >> 11) / double(1ULL << 53) - 0.5;
}

int world_size() {
  int p = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &p);
  return p;
}

// Distributed apply vs serial apply; returns the number of points that differ on this rank
// (summed over ranks).
long long mismatches(std::array<int, 3> global, std::array<int, 3> dims) {
  const pcoll::kernels::Stencil a{1.5, 2.25, 3.125};
  Decomposition d = make_decomposition(MPI_COMM_WORLD, global, dims);
  const Box &box = d.box;
  Field x = pcoll::kernels::make_field("x", box), y = pcoll::kernels::make_field("y", box);
  for (int k = 1; k <= box.nz; ++k)
    for (int j = 1; j <= box.ny; ++j)
      for (int i = 1; i <= box.nx; ++i)
        x(box.at(i, j, k)) = value_at(d.first[0] + i, d.first[1] + j, d.first[2] + k);
  HaloExchange halo(d);
  halo.exchange(x);
  pcoll::kernels::stencil_apply(box, a, x, y);

  const Box gbox{global[0], global[1], global[2]};
  Field gx = pcoll::kernels::make_field("gx", gbox), gy = pcoll::kernels::make_field("gy", gbox);
  for (int k = 1; k <= gbox.nz; ++k)
    for (int j = 1; j <= gbox.ny; ++j)
      for (int i = 1; i <= gbox.nx; ++i) gx(gbox.at(i, j, k)) = value_at(i, j, k);
  pcoll::kernels::stencil_apply(gbox, a, gx, gy);

  long long bad = 0, points = 0;
  for (int k = 1; k <= box.nz; ++k)
    for (int j = 1; j <= box.ny; ++j)
      for (int i = 1; i <= box.nx; ++i) {
        const double mine = y(box.at(i, j, k));
        const double ref = gy(gbox.at(d.first[0] + i, d.first[1] + j, d.first[2] + k));
        bad += std::memcmp(&mine, &ref, sizeof mine) != 0;
        ++points;
      }
  // Every global point is owned exactly once.
  long long total[2] = {bad, points};
  MPI_Allreduce(MPI_IN_PLACE, total, 2, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
  REQUIRE(total[1] == static_cast<long long>(global[0]) * global[1] * global[2]);
  free_decomposition(d);
  return total[0];
}

}  // namespace

TEST_CASE("block_range: contiguous, covering, sizes differ by at most one", "[halo]") {
  for (int n = 1; n <= 40; ++n)
    for (int parts = 1; parts <= n; ++parts) {
      int next = 0;
      for (int idx = 0; idx < parts; ++idx) {
        const Range1 r = block_range(n, parts, idx);
        REQUIRE(r.first == next);
        REQUIRE((r.count == n / parts || r.count == n / parts + 1));
        REQUIRE(r.count >= 1);
        next += r.count;
      }
      REQUIRE(next == n);
    }
}

TEST_CASE("halo exchange + stencil equals the serial stencil, bit for bit", "[halo]") {
  const int P = world_size();
  const std::array<int, 3> dims = process_grid(P);
  SECTION("MPI_Dims_create grid, uneven splits") {
    REQUIRE(mismatches({2 * dims[0] + 1, dims[1] + 2, 3 * dims[2] + 1}, dims) == 0);
    REQUIRE(mismatches({11, 7, 5}, dims) == 0);
  }
  SECTION("every subdomain 1 point thick along every axis") {
    REQUIRE(mismatches(dims, dims) == 0);
  }
  SECTION("slabs along each axis, some 1 point thick") {
    REQUIRE(mismatches({P, 3, 4}, {P, 1, 1}) == 0);
    REQUIRE(mismatches({3, P + 2, 2}, {1, P, 1}) == 0);
    REQUIRE(mismatches({2, 5, 2 * P - 1}, {1, 1, P}) == 0);
  }
}

TEST_CASE("a grid smaller than the process grid is rejected, naming the axis", "[halo]") {
  const int P = world_size();
  const std::array<int, 3> dims = process_grid(P);
  // Axis 0 has the most ranks (MPI_Dims_create sorts descending); P = 1: nx = 0.
  try {
    make_decomposition(MPI_COMM_WORLD, {dims[0] - 1, dims[1], dims[2]}, dims);
    FAIL("no exception");
  } catch (const std::invalid_argument &e) {
    REQUIRE_THAT(e.what(), Catch::Contains("nx = " + std::to_string(dims[0] - 1)));
  }
}
