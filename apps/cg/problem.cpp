// The manufactured problem, the cross-rank reductions of the dot products and the digests; see
// solver.hpp.
#include <pcoll/pcoll.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <stdexcept>

#include "solver.hpp"

namespace pcoll::cg {

namespace {
void check_mpi(int rc, const char *what) {
  if (rc != MPI_SUCCESS) throw std::runtime_error(std::string("MPI error in ") + what);
}
}  // namespace

double manufactured_factor(double t) {
  return t * (1 - t) * std::exp(t);
}
double manufactured_factor_dd(double t) {
  return -t * (3 + t) * std::exp(t);
}

Problem make_problem(const Decomposition &d, bool jacobi) {
  Problem pb;
  const kernels::Box &box = d.box;
  for (int a = 0; a < 3; ++a) pb.h[a] = 1.0 / (d.global[a] + 1);
  pb.a =
      kernels::Stencil{1 / (pb.h[0] * pb.h[0]), 1 / (pb.h[1] * pb.h[1]), 1 / (pb.h[2] * pb.h[2])};
  pb.b = kernels::make_field("pcoll::cg::b", box);
  pb.exact = kernels::make_field("pcoll::cg::exact", box);
  // Point (i, j, k) of the block is global interior point first + (i, j, k), at coordinate
  // (first + i) h along each axis (global index 0 is the boundary).
  std::vector<double> fx[3], ax[3];  // X(t) and -X''(t) at this block's points, per axis
  const int n[3] = {box.nx, box.ny, box.nz};
  for (int a = 0; a < 3; ++a) {
    fx[a].assign(n[a] + 2, 0.0);
    ax[a].assign(n[a] + 2, 0.0);
    for (int i = 1; i <= n[a]; ++i) {
      const double t = (d.first[a] + i) * pb.h[a];
      fx[a][i] = manufactured_factor(t);
      ax[a][i] = -manufactured_factor_dd(t);
    }
  }
  for (int k = 1; k <= box.nz; ++k)
    for (int j = 1; j <= box.ny; ++j)
      for (int i = 1; i <= box.nx; ++i) {
        const double x = fx[0][i], y = fx[1][j], z = fx[2][k];
        pb.exact(box.at(i, j, k)) = x * y * z;
        pb.b(box.at(i, j, k)) = ax[0][i] * y * z + x * ax[1][j] * z + x * y * ax[2][k];
      }
  if (jacobi) {
    // Constant here (constant coefficients): Jacobi only rescales the residual, which changes
    // the rounding but not the iteration count. Kept general for a variable-coefficient operator.
    pb.dinv = kernels::make_field("pcoll::cg::dinv", box);
    const double inv = 1 / pb.a.diag();
    Kokkos::deep_copy(pb.dinv, inv);
  }
  return pb;
}

Reducer::Reducer(MPI_Comm comm, bool reproducible)
    : comm_(comm), reproducible_(reproducible),
      bins_(reproducible ? kernels::DotWorkspace::kMaxProducts : 0) {}

void Reducer::finish(double *v, int k) {
  if (!reproducible_) return;
  for (int m = 0; m < k; ++m) v[m] = PCOLL_Binned_value(&bins_[static_cast<std::size_t>(m)]);
}

void Reducer::allreduce(double *v, int k) {
  check_mpi(reproducible_ ? PCOLL_Allreduce(MPI_IN_PLACE, bins_.data(), k, PCOLL_Binned_type(),
                                            PCOLL_Binned_op(), comm_)
                          : PCOLL_Allreduce(MPI_IN_PLACE, v, k, MPI_DOUBLE, MPI_SUM, comm_),
            "PCOLL_Allreduce");
  if (served_.empty()) {
    const char *name = "";
    PCOLL_Get_last_algorithm(comm_, &name);
    served_ = name;
  }
  finish(v, k);
}

void Reducer::start(double *v, int k) {
  check_mpi(reproducible_ ? PCOLL_Iallreduce(MPI_IN_PLACE, bins_.data(), k, PCOLL_Binned_type(),
                                             PCOLL_Binned_op(), comm_, &request_)
                          : PCOLL_Iallreduce(MPI_IN_PLACE, v, k, MPI_DOUBLE, MPI_SUM, comm_,
                                             &request_),
            "PCOLL_Iallreduce");
  if (served_.empty()) {
    const char *name = "";
    PCOLL_Get_last_algorithm(comm_, &name);
    served_ = name;
  }
}

void Reducer::wait(double *v, int k) {
  check_mpi(PCOLL_Wait(&request_, MPI_STATUS_IGNORE), "PCOLL_Wait (PCOLL_Iallreduce)");
  finish(v, k);
}

std::uint64_t field_digest(const Decomposition &d, kernels::ConstField x) {
  const kernels::Box &box = d.box;
  std::uint64_t h = 0;
  for (int k = 1; k <= box.nz; ++k)
    for (int j = 1; j <= box.ny; ++j)
      for (int i = 1; i <= box.nx; ++i) {
        std::uint64_t bits;
        const double v = x(box.at(i, j, k));
        std::memcpy(&bits, &v, sizeof bits);
        // The point's global index and bits, mixed (splitmix64's finaliser), then summed.
        const std::uint64_t g =
            static_cast<std::uint64_t>(d.first[0] + i - 1) +
            static_cast<std::uint64_t>(d.global[0]) *
                (static_cast<std::uint64_t>(d.first[1] + j - 1) +
                 static_cast<std::uint64_t>(d.global[1]) * static_cast<std::uint64_t>(d.first[2] + k - 1));
        std::uint64_t z = bits ^ (g * 0x9e3779b97f4a7c15ULL);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
        h += z ^ (z >> 31);
      }
  std::uint64_t total = 0;
  check_mpi(MPI_Allreduce(&h, &total, 1, MPI_UINT64_T, MPI_SUM, d.cart), "digest");
  return total;
}

namespace {
// Products per deposit: rows are gathered into runs of about this many products, each deposited
// with one PCOLL_Binned_add_n (the vector kernel's block), not one call per row of nx.
constexpr int kRun = 1024;
int rows_per_run(const kernels::Box &box) { return std::max(1, kRun / std::max(1, box.nx)); }
int runs_of(const kernels::Box &box) {
  const int per = rows_per_run(box);
  return (box.rows() + per - 1) / per;
}
}  // namespace

BinnedDotWorkspace::BinnedDotWorkspace(const kernels::Box &box)
    : rows("pcoll::cg::binned_dot_runs", runs_of(box), kernels::DotWorkspace::kMaxProducts) {}

void binned_dot_products(const kernels::Box &box, int count, const kernels::ConstField *a,
                         const kernels::ConstField *b, PCOLL_Binned *out, BinnedDotWorkspace &ws) {
  if (count < 1 || count > kernels::DotWorkspace::kMaxProducts)
    throw std::invalid_argument("binned_dot_products: 1 to 3 products at a time");
  const int runs = runs_of(box), per = rows_per_run(box);
  if (ws.rows.extent(0) != static_cast<std::size_t>(runs))
    throw std::invalid_argument("binned_dot_products: workspace sized for another box");
  const int nx = box.nx, ny = box.ny, nrows = box.rows();
  auto sums = ws.rows;
  const kernels::ConstField a0 = a[0], b0 = b[0];
  const kernels::ConstField a1 = count > 1 ? a[1] : a0, b1 = count > 1 ? b[1] : b0;
  const kernels::ConstField a2 = count > 2 ? a[2] : a0, b2 = count > 2 ? b[2] : b0;
  // Each product is rounded once (x * y, as PCOLL_Binned_dot_n forms it) into a run's buffer of
  // up to kRun products (a few interior rows), and the run is deposited at once.
  Kokkos::parallel_for(
      "pcoll::cg::binned_dot_runs",
      Kokkos::RangePolicy<Kokkos::DefaultHostExecutionSpace>(0, runs), [=](const int run) {
        const int first = run * per, last = std::min(nrows, first + per);
        double prod[kRun];
        for (int m = 0; m < count; ++m) {
          const kernels::ConstField &x = m == 0 ? a0 : m == 1 ? a1 : a2;
          const kernels::ConstField &y = m == 0 ? b0 : m == 1 ? b1 : b2;
          PCOLL_Binned s;
          PCOLL_Binned_clear(&s);
          std::size_t k = 0;
          for (int row = first; row < last; ++row) {
            const std::size_t base = box.at(0, row % ny + 1, row / ny + 1);
            const double *xr = &x(base + 1), *yr = &y(base + 1);
            for (int i = 0; i < nx; ++i) {  // a row longer than kRun is deposited in pieces
              prod[k++] = xr[i] * yr[i];
              if (k == kRun) PCOLL_Binned_add_n(&s, prod, k), k = 0;
            }
          }
          PCOLL_Binned_add_n(&s, prod, k);
          sums(run, m) = s;
        }
      });
  Kokkos::DefaultHostExecutionSpace().fence();
  for (int m = 0; m < count; ++m) {
    PCOLL_Binned_clear(&out[m]);
    for (int run = 0; run < runs; ++run) PCOLL_Binned_merge(&out[m], &sums(run, m));
  }
}

}  // namespace pcoll::cg
