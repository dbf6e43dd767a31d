// The manufactured problem, the cross-rank reductions of the dot products and the digests; see
// solver.hpp.
#include <pcoll/pcoll.hpp>

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

Reducer::Reducer(MPI_Comm comm, bool exact) : comm_(comm), exact_(exact) {
  MPI_Comm_rank(comm, &rank_);
  MPI_Comm_size(comm, &size_);
  if (exact_) slots_.resize(static_cast<std::size_t>(size_) * 3);
}

double *Reducer::prepare(double *v, int k) {
  if (!exact_) return v;
  if (slots_.size() < static_cast<std::size_t>(size_) * k) slots_.resize(std::size_t(size_) * k);
  std::fill(slots_.begin(), slots_.begin() + std::size_t(size_) * k, 0.0);
  std::memcpy(&slots_[std::size_t(rank_) * k], v, sizeof(double) * k);
  return slots_.data();
}

void Reducer::finish(double *v, int k) {
  if (!exact_) return;
  for (int m = 0; m < k; ++m) {
    double s = 0;
    for (int p = 0; p < size_; ++p) s += slots_[std::size_t(p) * k + m];
    v[m] = s;
  }
}

void Reducer::allreduce(double *v, int k) {
  double *buf = prepare(v, k);
  const int count = exact_ ? size_ * k : k;
  check_mpi(PCOLL_Allreduce(MPI_IN_PLACE, buf, count, MPI_DOUBLE, MPI_SUM, comm_),
            "PCOLL_Allreduce");
  if (served_.empty()) {
    const char *name = "";
    PCOLL_Get_last_algorithm(comm_, &name);
    served_ = name;
  }
  finish(v, k);
}

void Reducer::start(double *v, int k) {
  double *buf = prepare(v, k);
  const int count = exact_ ? size_ * k : k;
  check_mpi(PCOLL_Iallreduce(MPI_IN_PLACE, buf, count, MPI_DOUBLE, MPI_SUM, comm_, &request_),
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

std::uint64_t field_digest(MPI_Comm comm, const kernels::Box &box, kernels::ConstField x) {
  std::uint64_t h = 0xcbf29ce484222325ULL;  // FNV-1a over the interior, x fastest
  for (int k = 1; k <= box.nz; ++k)
    for (int j = 1; j <= box.ny; ++j)
      for (int i = 1; i <= box.nx; ++i) {
        std::uint64_t bits;
        const double v = x(box.at(i, j, k));
        std::memcpy(&bits, &v, sizeof bits);
        for (int b = 0; b < 8; ++b) {
          h ^= (bits >> (8 * b)) & 0xff;
          h *= 0x100000001b3ULL;
        }
      }
  int size = 1;
  MPI_Comm_size(comm, &size);
  std::vector<std::uint64_t> all(size);
  check_mpi(MPI_Allgather(&h, 1, MPI_UINT64_T, all.data(), 1, MPI_UINT64_T, comm), "digest");
  std::uint64_t out = 0;
  for (std::uint64_t v : all) out = (out ^ v) * 0x9e3779b97f4a7c15ULL + 0x632be59bd9b4e019ULL;
  return out;
}

}  // namespace pcoll::cg
