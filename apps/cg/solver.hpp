// Distributed conjugate-gradient solvers for -Laplace(u) = f with a manufactured solution:
// textbook CG (`cg`), single-reduction Chronopoulos-Gear CG (`cg1`) and pipelined Ghysels-Vanroose
// CG (`pipecg`), optionally Jacobi-preconditioned. Every dot product goes through PCOLL_Allreduce
// (pipecg with overlap: PCOLL_Iallreduce, the same algorithm's plan run as a nonblocking request,
// completed by PCOLL_Wait and advanced by the halo exchange's PCOLL_Waitall).
#pragma once

#include <mpi.h>

#include <pcoll/kernels/stencil.hpp>

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

// Sums of per-rank values across ranks, k doubles at a time, in place.
//  sum:   PCOLL_Allreduce(MPI_SUM) of the k doubles: what a Krylov code does. The bits depend on
//         the order in which the algorithm adds the P partial sums.
//  exact: rank p writes its k values into slots [p k, p k + k) of a zeroed P k vector, which is
//         allreduced (x + 0 = x exactly, whatever the order), and every rank adds the P values in
//         rank order: bitwise the same result for every allreduce algorithm (P times the bytes).
class Reducer {
 public:
  Reducer(MPI_Comm comm, bool exact);
  void allreduce(double *v, int k);                      // PCOLL_Allreduce, blocking
  void start(double *v, int k);                          // PCOLL_Iallreduce, nonblocking
  void wait(double *v, int k);                           // completes start()
  const std::string &served() const { return served_; }  // algorithm of the first call
  void forget_served() { served_.clear(); }              // at the start of each run

 private:
  double *prepare(double *v, int k);
  void finish(double *v, int k);
  MPI_Comm comm_;
  bool exact_;
  int rank_ = 0, size_ = 1;
  std::vector<double> slots_;
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
  kernels::Field x_, r_, z_, p_, q_, s_, u_, w_, m_, n_;
  std::vector<std::string> phase_names_;
  std::vector<double> *times_ = nullptr;  // the running iteration's row
  std::size_t row_ = 0;
  double phase_start_ = 0;
  long long traced_iterations_ = 0;
  bool vector_charged_ = false;  // SMPI: this iteration's vector work was charged
};

// Digest of a field's interior bits over all ranks (rank order); collective.
std::uint64_t field_digest(MPI_Comm comm, const kernels::Box &box, kernels::ConstField x);

}  // namespace pcoll::cg
