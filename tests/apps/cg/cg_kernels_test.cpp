// The CG kernels without MPI, registered at several thread counts: the stencil against the exact
// eigenvalue of the 7-point operator, dot products against the documented serial association
// (bit for bit, so any thread count gives the same bits), the fused updates against their
// unfused definitions, and the halo face packing.
#include <pcoll/kernels/stencil.hpp>

#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <utility>

using namespace pcoll::kernels;

namespace {

// Deterministic, irregular values (no structure a wrong index could hide behind).
double value_at(int i, int j, int k, int salt) {
  std::uint64_t z = std::uint64_t(i) * 73856093u ^ std::uint64_t(j) * 19349663u ^
                    std::uint64_t(k) * 83492791u ^ std::uint64_t(salt) * 2654435761u;
  z = (z ^ (z >> 13)) * 0x9e3779b97f4a7c15ULL;
  return double(z >> 11) / double(1ULL << 53) - 0.5;
}

Field filled(const Box &box, int salt, bool ghosts = false) {
  Field f = make_field("test", box);
  for (int k = 0; k < box.sz(); ++k)
    for (int j = 0; j < box.sy(); ++j)
      for (int i = 0; i < box.sx(); ++i) {
        const bool interior =
            i >= 1 && i <= box.nx && j >= 1 && j <= box.ny && k >= 1 && k <= box.nz;
        if (interior || ghosts) f(box.at(i, j, k)) = value_at(i, j, k, salt);
      }
  return f;
}

bool same_bits(double a, double b) {
  return std::memcmp(&a, &b, sizeof a) == 0;
}

}  // namespace

TEST_CASE("stencil: discrete eigenvector sin(pi i h) gets the exact eigenvalue") {
  const Box box{9, 6, 4};
  const double h[3] = {1.0 / 10, 1.0 / 7, 1.0 / 5};
  const Stencil a{1 / (h[0] * h[0]), 1 / (h[1] * h[1]), 1 / (h[2] * h[2])};
  const double pi = std::acos(-1.0);
  Field x = make_field("x", box), y = make_field("y", box);
  for (int k = 1; k <= box.nz; ++k)
    for (int j = 1; j <= box.ny; ++j)
      for (int i = 1; i <= box.nx; ++i)
        x(box.at(i, j, k)) =
            std::sin(pi * i * h[0]) * std::sin(pi * j * h[1]) * std::sin(pi * k * h[2]);
  stencil_apply(box, a, x, y);
  double lambda = 0;
  for (int d = 0; d < 3; ++d) lambda += 4 / (h[d] * h[d]) * std::pow(std::sin(pi * h[d] / 2), 2);
  for (int k = 1; k <= box.nz; ++k)
    for (int j = 1; j <= box.ny; ++j)
      for (int i = 1; i <= box.nx; ++i)
        REQUIRE(y(box.at(i, j, k)) == Approx(lambda * x(box.at(i, j, k))).margin(1e-11 * lambda));
}

TEST_CASE("stencil: reads the ghost layer, writes only the interior") {
  const Box box{3, 2, 2};
  const Stencil a{1, 2, 3};
  Field x = filled(box, 1, true), y = filled(box, 2, true), y0 = filled(box, 2, true);
  stencil_apply(box, a, x, y);
  for (int k = 0; k < box.sz(); ++k)
    for (int j = 0; j < box.sy(); ++j)
      for (int i = 0; i < box.sx(); ++i) {
        const std::size_t p = box.at(i, j, k);
        const bool interior =
            i >= 1 && i <= box.nx && j >= 1 && j <= box.ny && k >= 1 && k <= box.nz;
        if (!interior) {
          REQUIRE(same_bits(y(p), y0(p)));
          continue;
        }
        const std::size_t sy = box.sx(), sz = std::size_t(box.sx()) * box.sy();
        const double want = 2 * (1 + 2 + 3) * x(p) - 1 * (x(p - 1) + x(p + 1)) -
                            2 * (x(p - sy) + x(p + sy)) - 3 * (x(p - sz) + x(p + sz));
        REQUIRE(same_bits(y(p), want));
      }
}

TEST_CASE("dot products: the documented row-by-row association, bit for bit") {
  for (const Box box : {Box{1, 1, 1}, Box{7, 5, 3}, Box{33, 17, 9}}) {
    DotWorkspace ws(box);
    Field a = filled(box, 3), b = filled(box, 4), c = filled(box, 5);
    const ConstField as[3] = {a, b, c}, bs[3] = {b, c, c};
    double got[3];
    dot_products(box, 3, as, bs, got, ws);
    for (int m = 0; m < 3; ++m) {
      double total = 0;
      for (int k = 1; k <= box.nz; ++k)
        for (int j = 1; j <= box.ny; ++j) {
          double row = 0;
          for (int i = 1; i <= box.nx; ++i) row += as[m](box.at(i, j, k)) * bs[m](box.at(i, j, k));
          total += row;
        }
      REQUIRE(same_bits(got[m], total));
    }
    REQUIRE(same_bits(dot(box, a, b, ws), got[0]));
  }
}

TEST_CASE("fused updates equal their unfused definitions bit for bit") {
  const Box box{6, 5, 4};
  const double alpha = 0.37, beta = -1.25;
  SECTION("cg1_update") {
    Field u = filled(box, 1), w = filled(box, 2), p = filled(box, 3), s = filled(box, 4),
          x = filled(box, 5), r = filled(box, 6);
    Field p2 = filled(box, 3), s2 = filled(box, 4), x2 = filled(box, 5), r2 = filled(box, 6);
    cg1_update(box, alpha, beta, u, w, p, s, x, r);
    xpby(box, u, beta, p2);
    xpby(box, w, beta, s2);
    axpy(box, alpha, p2, x2);
    axpy(box, -alpha, s2, r2);
    for (std::size_t e = 0; e < box.size(); ++e) {
      REQUIRE(same_bits(p(e), p2(e)));
      REQUIRE(same_bits(s(e), s2(e)));
      REQUIRE(same_bits(x(e), x2(e)));
      REQUIRE(same_bits(r(e), r2(e)));
    }
  }
  SECTION("pipecg_update") {
    Field m = filled(box, 7), n = filled(box, 8);
    PipeVectors v{filled(box, 9),  filled(box, 10), filled(box, 11), filled(box, 12),
                  filled(box, 13), filled(box, 14), filled(box, 15), filled(box, 16)};
    PipeVectors o{filled(box, 9),  filled(box, 10), filled(box, 11), filled(box, 12),
                  filled(box, 13), filled(box, 14), filled(box, 15), filled(box, 16)};
    pipecg_update(box, alpha, beta, m, n, v);
    xpby(box, n, beta, o.z);
    xpby(box, m, beta, o.q);
    xpby(box, o.w, beta, o.s);
    xpby(box, o.u, beta, o.p);
    axpy(box, alpha, o.p, o.x);
    axpy(box, -alpha, o.s, o.r);
    axpy(box, -alpha, o.q, o.u);
    axpy(box, -alpha, o.z, o.w);
    for (std::size_t e = 0; e < box.size(); ++e)
      for (auto [a, b] : {std::pair{v.z, o.z},
                          {v.q, o.q},
                          {v.s, o.s},
                          {v.p, o.p},
                          {v.x, o.x},
                          {v.r, o.r},
                          {v.u, o.u},
                          {v.w, o.w}})
        REQUIRE(same_bits(a(e), b(e)));
  }
}

TEST_CASE("halo faces: pack takes the outermost interior layer, unpack fills the ghost layer") {
  const Box box{4, 3, 5};
  Field x = filled(box, 21);
  for (int face = 0; face < 6; ++face) {
    const int d = face / 2, side = face % 2;
    Field buf("buf", face_size(box, face));
    pack_face(box, face, x, buf);
    Field y = make_field("y", box);
    unpack_face(box, face, buf, y);
    const int n[3] = {box.nx, box.ny, box.nz};
    REQUIRE(face_size(box, face) == std::size_t(box.interior() / n[d]));
    // Every ghost point beyond the face holds the interior point next to it; nothing else moved.
    std::size_t filled_ghosts = 0;
    for (int k = 0; k < box.sz(); ++k)
      for (int j = 0; j < box.sy(); ++j)
        for (int i = 0; i < box.sx(); ++i) {
          int idx[3] = {i, j, k};
          const bool in_face = idx[d] == (side ? n[d] + 1 : 0) && [&] {
            for (int o = 0; o < 3; ++o)
              if (o != d && (idx[o] < 1 || idx[o] > n[o])) return false;
            return true;
          }();
          if (!in_face) {
            REQUIRE(y(box.at(i, j, k)) == 0.0);
            continue;
          }
          idx[d] = side ? n[d] : 1;
          REQUIRE(same_bits(y(box.at(i, j, k)), x(box.at(idx[0], idx[1], idx[2]))));
          ++filled_ghosts;
        }
    REQUIRE(filled_ghosts == face_size(box, face));
  }
}
