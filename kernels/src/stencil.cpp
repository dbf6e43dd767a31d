// CG kernels; see the header for the storage and the determinism contract.
#include <pcoll/kernels/stencil.hpp>

#include <stdexcept>
#include <string>

namespace pcoll::kernels {

namespace {
using Range = Kokkos::RangePolicy<Kokkos::DefaultHostExecutionSpace>;

// Work is distributed by interior x-rows: a row is nx contiguous doubles, the unit-stride inner
// loop the compiler vectorises, and every row is owned by one thread.
template <class RowBody>
void for_rows(const char *label, const Box &box, const RowBody &body) {
  const int ny = box.ny;
  Kokkos::parallel_for(
      label, Range(0, box.rows()), KOKKOS_LAMBDA(const int row) {
        const std::size_t base = box.at(0, row % ny + 1, row / ny + 1);
        body(base);
      });
}
}  // namespace

Field make_field(const char *label, const Box &box) {
  return Field(std::string(label), box.size());
}

void stencil_apply(const Box &box, const Stencil &a, ConstField x, Field y) {
  const int nx = box.nx;
  const std::ptrdiff_t sy = box.sx(), sz = std::ptrdiff_t(box.sx()) * box.sy();
  const double cx = a.cx, cy = a.cy, cz = a.cz, d = a.diag();
  for_rows("pcoll::cg::stencil", box, [=](std::size_t base) {
    for (int i = 1; i <= nx; ++i) {
      const std::size_t p = base + i;
      // One fixed association for every point: diagonal, then x, y, z neighbour pairs.
      y(p) = d * x(p) - cx * (x(p - 1) + x(p + 1)) - cy * (x(p - sy) + x(p + sy)) -
             cz * (x(p - sz) + x(p + sz));
    }
  });
}

DotWorkspace::DotWorkspace(const Box &box)
    : rows_("pcoll::cg::dot_rows", box.rows(), kMaxProducts) {}

void dot_products(const Box &box, int count, const ConstField *a, const ConstField *b, double *out,
                  DotWorkspace &ws) {
  if (count < 1 || count > DotWorkspace::kMaxProducts)
    throw std::invalid_argument("dot_products: 1 to 3 products at a time");
  if (ws.rows_.extent(0) != static_cast<std::size_t>(box.rows()))
    throw std::invalid_argument("dot_products: workspace sized for another box");
  const int nx = box.nx, ny = box.ny;
  auto rows = ws.rows_;
  // Unused slots alias the first pair; their sums are computed and ignored.
  const ConstField a0 = a[0], b0 = b[0];
  const ConstField a1 = count > 1 ? a[1] : a0, b1 = count > 1 ? b[1] : b0;
  const ConstField a2 = count > 2 ? a[2] : a0, b2 = count > 2 ? b[2] : b0;
  Kokkos::parallel_for(
      "pcoll::cg::dot_rows", Range(0, box.rows()), KOKKOS_LAMBDA(const int row) {
        const std::size_t base = box.at(0, row % ny + 1, row / ny + 1);
        double s0 = 0, s1 = 0, s2 = 0;
        for (int i = 1; i <= nx; ++i) {
          s0 += a0(base + i) * b0(base + i);
          s1 += a1(base + i) * b1(base + i);
          s2 += a2(base + i) * b2(base + i);
        }
        rows(row, 0) = s0;
        rows(row, 1) = s1;
        rows(row, 2) = s2;
      });
  Kokkos::DefaultHostExecutionSpace().fence();
  // The row sums in row order, serially: O(ny nz) against the O(nx ny nz) above.
  for (int m = 0; m < count; ++m) {
    double s = 0;
    for (int row = 0; row < box.rows(); ++row) s += rows(row, m);
    out[m] = s;
  }
}

double dot(const Box &box, ConstField a, ConstField b, DotWorkspace &ws) {
  double out = 0;
  dot_products(box, 1, &a, &b, &out, ws);
  return out;
}

void copy_interior(const Box &box, ConstField x, Field y) {
  const int nx = box.nx;
  for_rows("pcoll::cg::copy", box, [=](std::size_t base) {
    for (int i = 1; i <= nx; ++i) y(base + i) = x(base + i);
  });
}

void scale(const Box &box, ConstField d, ConstField x, Field y) {
  const int nx = box.nx;
  for_rows("pcoll::cg::scale", box, [=](std::size_t base) {
    for (int i = 1; i <= nx; ++i) y(base + i) = d(base + i) * x(base + i);
  });
}

void xpby(const Box &box, ConstField x, double beta, Field y) {
  const int nx = box.nx;
  for_rows("pcoll::cg::xpby", box, [=](std::size_t base) {
    for (int i = 1; i <= nx; ++i) y(base + i) = x(base + i) + beta * y(base + i);
  });
}

void axpy(const Box &box, double alpha, ConstField x, Field y) {
  const int nx = box.nx;
  for_rows("pcoll::cg::axpy", box, [=](std::size_t base) {
    for (int i = 1; i <= nx; ++i) y(base + i) += alpha * x(base + i);
  });
}

void cg_update(const Box &box, double alpha, ConstField p, ConstField q, Field x, Field r) {
  const int nx = box.nx;
  for_rows("pcoll::cg::cg_update", box, [=](std::size_t base) {
    for (int i = 1; i <= nx; ++i) {
      x(base + i) += alpha * p(base + i);
      r(base + i) -= alpha * q(base + i);
    }
  });
}

void cg1_update(const Box &box, double alpha, double beta, ConstField u, ConstField w, Field p,
                Field s, Field x, Field r) {
  const int nx = box.nx;
  for_rows("pcoll::cg::cg1_update", box, [=](std::size_t base) {
    for (int i = 1; i <= nx; ++i) {
      const std::size_t e = base + i;
      p(e) = u(e) + beta * p(e);
      s(e) = w(e) + beta * s(e);
      x(e) += alpha * p(e);
      r(e) -= alpha * s(e);
    }
  });
}

void pipecg_update(const Box &box, double alpha, double beta, ConstField m, ConstField n,
                   const PipeVectors &v) {
  const int nx = box.nx;
  const PipeVectors w = v;
  for_rows("pcoll::cg::pipecg_update", box, [=](std::size_t base) {
    for (int i = 1; i <= nx; ++i) {
      const std::size_t e = base + i;
      w.z(e) = n(e) + beta * w.z(e);
      w.q(e) = m(e) + beta * w.q(e);
      w.s(e) = w.w(e) + beta * w.s(e);
      w.p(e) = w.u(e) + beta * w.p(e);
      w.x(e) += alpha * w.p(e);
      w.r(e) -= alpha * w.s(e);
      w.u(e) -= alpha * w.q(e);
      w.w(e) -= alpha * w.z(e);
    }
  });
}

namespace {
// A face of dimension d is spanned by the two other dimensions (a fastest, then b); `layer` is
// the index along d. Returns (extent a, extent b) and the strides of d, a, b in the field.
struct FaceGeometry {
  int na, nb;
  std::size_t sd, sa, sb;
};

FaceGeometry face_geometry(const Box &box, int face) {
  if (face < 0 || face > 5) throw std::invalid_argument("face must be in [0, 6)");
  const std::size_t s[3] = {1, std::size_t(box.sx()), std::size_t(box.sx()) * box.sy()};
  const int n[3] = {box.nx, box.ny, box.nz};
  const int d = face / 2, a = d == 0 ? 1 : 0, b = d == 2 ? 1 : 2;
  return {n[a], n[b], s[d], s[a], s[b]};
}

// Copies between the field's layer `layer` (along the face's dimension) and buf.
template <bool kPack>
void face_copy(const char *label, const Box &box, int face, int layer, Field field, Field buf) {
  const FaceGeometry g = face_geometry(box, face);
  const std::size_t origin = g.sd * layer + g.sa + g.sb;  // interior starts at index 1
  Kokkos::parallel_for(
      label, Range(0, g.nb), KOKKOS_LAMBDA(const int jb) {
        for (int ja = 0; ja < g.na; ++ja) {
          const std::size_t e = origin + g.sa * ja + g.sb * jb;
          const std::size_t f = std::size_t(ja) + std::size_t(g.na) * jb;
          if (kPack)
            buf(f) = field(e);
          else
            field(e) = buf(f);
        }
      });
}
}  // namespace

std::size_t face_size(const Box &box, int face) {
  const FaceGeometry g = face_geometry(box, face);
  return std::size_t(g.na) * g.nb;
}

void pack_face(const Box &box, int face, ConstField x, Field buf) {
  const int n[3] = {box.nx, box.ny, box.nz};
  const int layer = face % 2 == 0 ? 1 : n[face / 2];
  // The kernel only reads the field when packing; the const_cast gives one copy loop for both.
  Field xf(const_cast<double *>(x.data()), x.extent(0));
  face_copy<true>("pcoll::cg::pack_face", box, face, layer, xf, buf);
}

void unpack_face(const Box &box, int face, ConstField buf, Field x) {
  const int n[3] = {box.nx, box.ny, box.nz};
  const int layer = face % 2 == 0 ? 0 : n[face / 2] + 1;
  Field bf(const_cast<double *>(buf.data()), buf.extent(0));
  face_copy<false>("pcoll::cg::unpack_face", box, face, layer, x, bf);
}

}  // namespace pcoll::kernels
