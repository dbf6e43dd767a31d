// Kernels of the conjugate-gradient case study (apps/cg) on Kokkos' host execution space: the
// matrix-free 7-point Laplacian, dot products, and the fused vector updates of textbook CG,
// Chronopoulos-Gear CG and pipelined CG; plus the face packing of the halo exchange. No MPI here:
// the application exchanges halos and reduces the local dot products across ranks in between.
//
// Storage: every vector is a 3-D block of nx x ny x nz interior points plus one ghost layer on
// each side, flattened with x fastest: (i, j, k), i in [0, nx + 1], at i + (nx+2) (j + (ny+2) k).
// Interior points are i in [1, nx]. Kernels other than the stencil read and write the interior
// only, so ghosts of vectors that are never applied stay as they were (zero).
//
// Determinism contract: every result is bitwise independent of the thread count. Element-wise
// kernels are trivially so; a dot product sums each x-row sequentially in increasing i, then the
// row sums sequentially in increasing (j, k) order: the serial loop's association, by rows.
#pragma once

#include <Kokkos_Core.hpp>

#include <cstddef>

namespace pcoll::kernels {

using Field = Kokkos::View<double *, Kokkos::HostSpace>;
using ConstField = Kokkos::View<const double *, Kokkos::HostSpace>;

// The local block's interior extents; ghosts add one layer on each side.
struct Box {
  int nx = 0, ny = 0, nz = 0;
  int sx() const { return nx + 2; }
  int sy() const { return ny + 2; }
  int sz() const { return nz + 2; }
  std::size_t size() const { return std::size_t(sx()) * sy() * sz(); }
  std::size_t interior() const { return std::size_t(nx) * ny * nz; }
  int rows() const { return ny * nz; }  // interior x-rows
  KOKKOS_INLINE_FUNCTION std::size_t at(int i, int j, int k) const {
    return std::size_t(i) + std::size_t(nx + 2) * (std::size_t(j) + std::size_t(ny + 2) * k);
  }
};

// -Laplacian with spacings hx, hy, hz: (A u)_p = diag u_p - cx (u_e + u_w) - cy (u_n + u_s)
// - cz (u_t + u_b), cx = 1 / hx^2, diag = 2 (cx + cy + cz). Symmetric positive definite with
// zero Dirichlet ghosts.
struct Stencil {
  double cx = 1, cy = 1, cz = 1;
  double diag() const { return 2 * (cx + cy + cz); }
};

Field make_field(const char *label, const Box &box);  // zero-filled, ghosts included

// y = A x on the interior. x's ghosts must hold the neighbours' values (or the boundary's 0).
void stencil_apply(const Box &box, const Stencil &a, ConstField x, Field y);

// Scratch of the dot products: one partial sum per interior row and product.
class DotWorkspace {
 public:
  static constexpr int kMaxProducts = 3;
  DotWorkspace() = default;
  explicit DotWorkspace(const Box &box);

 private:
  friend void dot_products(const Box &, int, const ConstField *, const ConstField *, double *,
                           DotWorkspace &);
  Kokkos::View<double **, Kokkos::LayoutRight, Kokkos::HostSpace> rows_;  // [row][product]
};

// out[m] = sum over the interior of a[m] * b[m], for m < count <= kMaxProducts, in one pass.
// This rank's partial sums only; the caller reduces them across ranks.
void dot_products(const Box &box, int count, const ConstField *a, const ConstField *b, double *out,
                  DotWorkspace &ws);
double dot(const Box &box, ConstField a, ConstField b, DotWorkspace &ws);

// Element-wise, interior only.
void copy_interior(const Box &box, ConstField x, Field y);        // y = x
void scale(const Box &box, ConstField d, ConstField x, Field y);  // y = d .* x
void xpby(const Box &box, ConstField x, double beta, Field y);    // y = x + beta y
void axpy(const Box &box, double alpha, ConstField x, Field y);   // y += alpha x
// Textbook CG: x += alpha p, r -= alpha q.
void cg_update(const Box &box, double alpha, ConstField p, ConstField q, Field x, Field r);
// Chronopoulos-Gear: p = u + beta p, s = w + beta s, x += alpha p, r -= alpha s.
void cg1_update(const Box &box, double alpha, double beta, ConstField u, ConstField w, Field p,
                Field s, Field x, Field r);
// Ghysels-Vanroose: z = n + beta z, q = m + beta q, s = w + beta s, p = u + beta p,
// x += alpha p, r -= alpha s, u -= alpha q, w -= alpha z.
struct PipeVectors {
  Field z, q, s, p, x, r, u, w;
};
void pipecg_update(const Box &box, double alpha, double beta, ConstField m, ConstField n,
                   const PipeVectors &v);

// Halo faces. face = 2 d + side: d = 0, 1, 2 for x, y, z; side 0 = low, 1 = high. pack copies the
// outermost interior layer of that face into buf; unpack writes buf into the ghost layer beyond
// that face. buf holds face_size(box, face) doubles, ordered by the other two indices.
std::size_t face_size(const Box &box, int face);
void pack_face(const Box &box, int face, ConstField x, Field buf);
void unpack_face(const Box &box, int face, ConstField buf, Field x);

}  // namespace pcoll::kernels
