// Distributed conjugate-gradient solvers for -Laplace(u) = f with a manufactured solution:
// textbook CG (`cg`), single-reduction Chronopoulos-Gear CG (`cg1`) and pipelined Ghysels-Vanroose
// CG (`pipecg`), optionally Jacobi-preconditioned. Every dot product goes through PCOLL_Allreduce
// (pipecg with overlap: PCOLL_Iallreduce, the same algorithm's plan run as a nonblocking request,
// completed by PCOLL_Wait and advanced by the halo exchange's PCOLL_Waitall).
#pragma once

#include <mpi.h>

#include <pcoll/kernels/stencil.hpp>
#include <pcoll/pcoll.h>

#include <cstdint>
#include <string>
#include <vector>

#include "grid.hpp"
#include "options.hpp"

namespace pcoll::cg {

// The manufactured problem on this rank's block: u = X(x) X(y) X(z) with X(t) = t (1 - t) e^t on
// the unit cube, zero on the boundary, f = -Laplace(u); grid spacing h = 1 / (n + 1) per axis.
// Not the classic sin(pi x) sin(pi y) sin(pi z): that is an eigenvector of the discrete 7-point
// operator, so f is too and CG converges in one iteration; this u has every eigencomponent, and
// its fourth derivatives do not vanish, so the discretisation error is a true O(h^2).
double manufactured_factor(double t);     // X(t)
double manufactured_factor_dd(double t);  // X''(t) = -t (3 + t) e^t
struct Problem {
  kernels::Stencil a;
  kernels::Field b, exact;  // right-hand side f, exact solution at the grid points
  kernels::Field dinv;      // inverse diagonal (Jacobi), empty without preconditioner
  double h[3] = {0, 0, 0};
};
Problem make_problem(const Decomposition &d, bool jacobi);

// out[m] = the binned sum over the interior of a[m] * b[m] (m < count <= 3): each product is
// rounded once and deposited, runs of rows in parallel, so the sums depend on the set of products
// only.
class BinnedDotWorkspace {
 public:
  BinnedDotWorkspace() = default;
  explicit BinnedDotWorkspace(const kernels::Box &box);
  Kokkos::View<PCOLL_Binned **, Kokkos::LayoutRight, Kokkos::HostSpace> rows;  // [run of rows][product]
};
void binned_dot_products(const kernels::Box &box, int count, const kernels::ConstField *a,
                         const kernels::ConstField *b, PCOLL_Binned *out, BinnedDotWorkspace &ws);

// Sums of per-rank values across ranks, k doubles at a time, in place.
//  sum:          PCOLL_Allreduce(MPI_SUM) of the k doubles: what a Krylov code does. The bits
//                depend on the order in which the algorithm adds the P partial sums.
//  reproducible: each rank's partials are binned sums (PCOLL_Binned, pcoll.h) of its own points'
//                products, filled by binned_dot_products(); the k sums are allreduced with
//                PCOLL_Binned_type / PCOLL_Binned_op (k x 56 bytes) and rounded once: the same
//                bits for every allreduce algorithm, every rank count and every decomposition
//                of the grid (the order of the additions no longer matters).
class Reducer {
 public:
  Reducer(MPI_Comm comm, bool reproducible);
  bool reproducible() const { return reproducible_; }
  PCOLL_Binned *partials() { return bins_.data(); }     // kMaxProducts of them
  void allreduce(double *v, int k);                      // PCOLL_Allreduce, blocking
  void start(double *v, int k);                          // PCOLL_Iallreduce, nonblocking
  void wait(double *v, int k);                           // completes start()
  const std::string &served() const { return served_; }  // algorithm of the first call
  void forget_served() { served_.clear(); }              // at the start of each run

 private:
  void finish(double *v, int k);
  MPI_Comm comm_;
  bool reproducible_;
  std::vector<PCOLL_Binned> bins_;
  MPI_Request request_ = MPI_REQUEST_NULL;
  std::string served_;
};

// One run of a solver from x = 0.
struct RunResult {
  int iterations = 0;
  bool converged = false;
  double rel_residual = 0;          // ||r|| / ||b|| of the recurrence, at exit
  double true_rel_residual = 0;     // ||b - A x|| / ||b||, recomputed after the loop
  double err_max = 0, err_l2 = 0;   // x against the exact u: max norm, h^3-weighted 2-norm
  double wall = 0;                  // this rank's time of the whole solve (setup + iterations)
  std::vector<std::string> phases;  // names of the per-iteration phases
  std::vector<double> times;        // [iteration][phase] seconds on this rank
  std::vector<double> history;      // ||r_i|| / ||b|| per iteration, identical on every rank
  std::uint64_t digest = 0;         // hash of x (all ranks, rank order) and the history bits
  std::string served;               // allreduce algorithm that served the dot products
};

class Solver {
 public:
  Solver(const Decomposition &d, const Problem &p, const Options &opt);
  RunResult run();  // collective over d.cart
  kernels::ConstField solution() const { return x_; }

 private:
  void run_cg(RunResult &res);
  void run_cg1(RunResult &res);
  void run_pipecg(RunResult &res);
  void finish_run(RunResult &res);
  void next_iteration(RunResult &res);
  bool breakdown(const RunResult &res) const;
  // Per-iteration phase clock and pcoll trace phases.
  void begin(int phase);
  void end(int phase);
  void dots(int count, const kernels::ConstField *a, const kernels::ConstField *b, double *out);

  const Decomposition &d_;
  const Problem &pb_;
  const Options &opt_;
  HaloExchange halo_;
  Reducer reducer_;
  kernels::DotWorkspace ws_;
  BinnedDotWorkspace bws_;  // reduction = reproducible
  kernels::Field x_, r_, z_, p_, q_, s_, u_, w_, m_, n_;
  std::vector<std::string> phase_names_;
  std::vector<double> *times_ = nullptr;  // the running iteration's row
  std::size_t row_ = 0;
  double phase_start_ = 0;
  long long traced_iterations_ = 0;
  bool vector_charged_ = false;  // SMPI: this iteration's vector work was charged
};

// Digest of a field's interior bits over all ranks (rank order); collective.
// The interior's bits, hashed per global grid point and summed (mod 2^64): the same digest for
// the same global field whatever the decomposition.
std::uint64_t field_digest(const Decomposition &d, kernels::ConstField x);



}  // namespace pcoll::cg
