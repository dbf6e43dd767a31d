// The three CG variants; see solver.hpp. Each iteration applies the stencil once (after a halo
// exchange) and reduces its dot products; the phases are timed per iteration and, with tracing
// on, recorded as pcoll trace phases named as in the HDF5 log.
#include "solver.hpp"

#include <pcoll/trace.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <stdexcept>

#ifdef PCOLL_SMPI
#include <simgrid/host.h>
#endif

namespace pcoll::cg {

namespace {
using kernels::ConstField;
enum Phase { kHalo, kStencil, kVector, kDot1, kDot2 };

// In SMPI builds, charge `seconds` of computation to the simulated rank (as flops at this host's
// speed in the platform file, so exactly `seconds` pass whatever that speed is).
void inject_compute(double seconds) {
#ifdef PCOLL_SMPI
  if (seconds > 0) smpi_execute_flops(seconds * sg_host_get_speed(sg_host_self()));
#else
  (void)seconds;
#endif
}
}  // namespace

Solver::Solver(const Decomposition &d, const Problem &p, const Options &opt)
    : d_(d), pb_(p), opt_(opt), halo_(d), reducer_(d.cart, opt.reduction == "reproducible"), ws_(d.box) {
  if (reducer_.reproducible()) bws_ = BinnedDotWorkspace(d.box);
  const kernels::Box &box = d.box;
  for (auto *f : {&x_, &r_, &z_, &p_, &q_, &s_, &u_, &w_, &m_, &n_})
    *f = kernels::make_field("pcoll::cg::vector", box);
}

void Solver::begin(int phase) {
  PCOLL_Trace_phase_begin(phase_names_[phase].c_str());
  phase_start_ = MPI_Wtime();
}

void Solver::end(int phase) {
  Kokkos::DefaultHostExecutionSpace().fence();  // a phase ends when its kernels have finished
  // Simulation: the stencil in its phase; the vector work of the whole iteration in its first
  // vector phase, before any reduction starts, so pipecg's overlap is not overstated.
  const double points = static_cast<double>(d_.box.interior());
  if (phase == kStencil) inject_compute(opt_.sim_stencil_per_point * points);
  if (phase == kVector && !vector_charged_) {
    inject_compute(opt_.sim_vector_per_point * points);
    vector_charged_ = true;
  }
  (*times_)[row_ + phase] += MPI_Wtime() - phase_start_;
  PCOLL_Trace_phase_end(phase_names_[phase].c_str());
}

// A residual that is not finite (a zero or NaN denominator) ends the solve, unconverged, instead
// of iterating on NaN to max_iterations; every rank sees the same reduced values, so all stop.
bool Solver::breakdown(const RunResult &res) const {
  return !std::isfinite(res.rel_residual);
}

// This rank's partial sums: doubles, or (reproducible) binned sums the reducer takes from there.
void Solver::dots(int count, const ConstField *a, const ConstField *b, double *out) {
  if (reducer_.reproducible()) {
    binned_dot_products(d_.box, count, a, b, reducer_.partials(), bws_);
    for (int m = 0; m < count; ++m) out[m] = 0;  // the reducer writes the sums
  } else {
    kernels::dot_products(d_.box, count, a, b, out, ws_);
  }
}

RunResult Solver::run() {
  RunResult res;
  const bool jacobi = pb_.dinv.extent(0) > 0;
  if (opt_.solver == "cg")
    phase_names_ = {"halo", "stencil", "vector", "dot_pAp", jacobi ? "dot_rz_rr" : "dot_rr"};
  else
    phase_names_ = {"halo", "stencil", "vector", "dots_ru_wu_rr"};
  res.phases = phase_names_;
  times_ = &res.times;
  reducer_.forget_served();
  for (auto *f : {&x_, &r_, &z_, &p_, &q_, &s_, &u_, &w_, &m_, &n_}) Kokkos::deep_copy(*f, 0.0);
  MPI_Barrier(d_.cart);
  PCOLL_Trace_phase_begin("cg_run");
  const double start = MPI_Wtime();
  if (opt_.solver == "cg")
    run_cg(res);
  else if (opt_.solver == "cg1")
    run_cg1(res);
  else if (opt_.solver == "pipecg")
    run_pipecg(res);
  else
    throw std::invalid_argument("unknown solver '" + opt_.solver + "'");
  res.wall = MPI_Wtime() - start;
  PCOLL_Trace_phase_end("cg_run");
  res.served = reducer_.served();
  finish_run(res);
  return res;
}

// Opens the next iteration: its trace number (counted across runs, so each is unique in the
// file) and its row of phase times.
void Solver::next_iteration(RunResult &res) {
  PCOLL_Trace_iteration_begin(traced_iterations_++);
  row_ = res.times.size();
  res.times.resize(row_ + phase_names_.size(), 0.0);
  vector_charged_ = false;
}

// Textbook (preconditioned) CG: per iteration q = A p, (p, q) and then (r, z) [and (r, r) in the
// same call when z != r]: two allreduces, the second depending on the first.
void Solver::run_cg(RunResult &res) {
  const kernels::Box &box = d_.box;
  const bool jacobi = pb_.dinv.extent(0) > 0;
  kernels::Field z = jacobi ? z_ : r_;  // M = I: z is r itself
  kernels::copy_interior(box, pb_.b, r_);
  if (jacobi) kernels::scale(box, pb_.dinv, r_, z);
  kernels::copy_interior(box, z, p_);
  double v[2];
  const ConstField a2[2] = {r_, r_}, b2[2] = {z, r_};
  dots(jacobi ? 2 : 1, a2, b2, v);
  reducer_.allreduce(v, jacobi ? 2 : 1);
  double rz = v[0], rr = jacobi ? v[1] : v[0];
  const double bnorm = std::sqrt(rr);  // x0 = 0: r0 = b
  for (int it = 0;; ++it) {
    res.rel_residual = std::sqrt(rr) / bnorm;
    res.history.push_back(res.rel_residual);
    if (res.rel_residual < opt_.tol) res.converged = true;
    if (res.converged || it == opt_.max_iterations || breakdown(res)) break;
    next_iteration(res);
    begin(kHalo), halo_.exchange(p_), end(kHalo);
    begin(kStencil), kernels::stencil_apply(box, pb_.a, p_, q_), end(kStencil);
    begin(kVector);
    double pq;
    const ConstField pf[1] = {p_}, qf[1] = {q_};
    dots(1, pf, qf, &pq);
    end(kVector);
    begin(kDot1), reducer_.allreduce(&pq, 1), end(kDot1);
    const double alpha = rz / pq;
    begin(kVector);
    kernels::cg_update(box, alpha, p_, q_, x_, r_);
    if (jacobi) kernels::scale(box, pb_.dinv, r_, z);
    dots(jacobi ? 2 : 1, a2, b2, v);
    end(kVector);
    begin(kDot2), reducer_.allreduce(v, jacobi ? 2 : 1), end(kDot2);
    const double rz_new = v[0];
    rr = jacobi ? v[1] : v[0];
    begin(kVector), kernels::xpby(box, z, rz_new / rz, p_), end(kVector);
    rz = rz_new;
    res.iterations = it + 1;
    PCOLL_Trace_iteration_end();
  }
}

// Chronopoulos-Gear CG (Ghysels & Vanroose 2014, Alg. 2): gamma = (r, u), delta = (w, u) with
// u = M r and w = A u, and (r, r) for the stopping test, in one allreduce of 3 doubles.
void Solver::run_cg1(RunResult &res) {
  const kernels::Box &box = d_.box;
  const bool jacobi = pb_.dinv.extent(0) > 0;
  kernels::Field u = jacobi ? u_ : r_;
  kernels::copy_interior(box, pb_.b, r_);
  if (jacobi) kernels::scale(box, pb_.dinv, r_, u);
  halo_.exchange(u);
  kernels::stencil_apply(box, pb_.a, u, w_);
  const ConstField a3[3] = {r_, w_, r_}, b3[3] = {u, u, r_};
  double v[3];
  dots(3, a3, b3, v);
  reducer_.allreduce(v, 3);
  const double bnorm = std::sqrt(v[2]);
  double gamma_old = 0, alpha_old = 0;
  for (int it = 0;; ++it) {
    const double gamma = v[0], delta = v[1];
    res.rel_residual = std::sqrt(v[2]) / bnorm;
    res.history.push_back(res.rel_residual);
    if (res.rel_residual < opt_.tol) res.converged = true;
    if (res.converged || it == opt_.max_iterations || breakdown(res)) break;
    next_iteration(res);
    const double beta = it == 0 ? 0.0 : gamma / gamma_old;
    const double alpha = it == 0 ? gamma / delta : gamma / (delta - beta * gamma / alpha_old);
    begin(kVector);
    kernels::cg1_update(box, alpha, beta, u, w_, p_, s_, x_, r_);
    if (jacobi) kernels::scale(box, pb_.dinv, r_, u);
    end(kVector);
    begin(kHalo), halo_.exchange(u), end(kHalo);
    begin(kStencil), kernels::stencil_apply(box, pb_.a, u, w_), end(kStencil);
    begin(kVector), dots(3, a3, b3, v), end(kVector);
    begin(kDot1), reducer_.allreduce(v, 3), end(kDot1);
    gamma_old = gamma;
    alpha_old = alpha;
    res.iterations = it + 1;
    PCOLL_Trace_iteration_end();
  }
}

// Pipelined CG (Ghysels & Vanroose 2014, Alg. 4): the allreduce of (r, u), (w, u), (r, r) is
// started, then m = M w and n = A m are computed while it is in flight, then the eight recurrences
// are updated in one fused kernel. The stencil of the last iteration is spent before the stopping
// test can see its residual: the price of the pipeline.
void Solver::run_pipecg(RunResult &res) {
  const kernels::Box &box = d_.box;
  const bool jacobi = pb_.dinv.extent(0) > 0;
  // M = I: m is w itself. u stays its own vector (updated as u -= alpha q, the same operations
  // as r, so equal to r bit for bit) because the fused update writes r and u separately.
  kernels::Field m = jacobi ? m_ : w_;
  kernels::copy_interior(box, pb_.b, r_);
  if (jacobi)
    kernels::scale(box, pb_.dinv, r_, u_);
  else
    kernels::copy_interior(box, r_, u_);
  halo_.exchange(u_);
  kernels::stencil_apply(box, pb_.a, u_, w_);
  const kernels::PipeVectors vec{z_, q_, s_, p_, x_, r_, u_, w_};
  const ConstField a3[3] = {r_, w_, r_}, b3[3] = {u_, u_, r_};
  double bnorm = 0, gamma_old = 0, alpha_old = 0;
  for (int it = 0;; ++it) {
    next_iteration(res);
    double v[3];
    begin(kVector), dots(3, a3, b3, v), end(kVector);
    if (opt_.overlap) {
      begin(kDot1), reducer_.start(v, 3), end(kDot1);
    } else {
      begin(kDot1), reducer_.allreduce(v, 3), end(kDot1);
    }
    begin(kVector);
    if (jacobi) kernels::scale(box, pb_.dinv, w_, m);
    end(kVector);
    begin(kHalo), halo_.exchange(m), end(kHalo);
    begin(kStencil), kernels::stencil_apply(box, pb_.a, m, n_), end(kStencil);
    if (opt_.overlap) begin(kDot1), reducer_.wait(v, 3), end(kDot1);
    const double gamma = v[0], delta = v[1];
    if (it == 0) bnorm = std::sqrt(v[2]);
    res.rel_residual = std::sqrt(v[2]) / bnorm;
    res.history.push_back(res.rel_residual);
    if (res.rel_residual < opt_.tol) res.converged = true;
    if (res.converged || it == opt_.max_iterations || breakdown(res)) {
      // This iteration only computed what the test needed: its row is not an iteration.
      res.times.resize(row_);
      PCOLL_Trace_iteration_end();
      break;
    }
    const double beta = it == 0 ? 0.0 : gamma / gamma_old;
    const double alpha = it == 0 ? gamma / delta : gamma / (delta - beta * gamma / alpha_old);
    begin(kVector), kernels::pipecg_update(box, alpha, beta, m, n_, vec), end(kVector);
    gamma_old = gamma;
    alpha_old = alpha;
    res.iterations = it + 1;
    PCOLL_Trace_iteration_end();
  }
}

// Untimed: the true residual and the error against the exact solution, and the digest.
void Solver::finish_run(RunResult &res) {
  const kernels::Box &box = d_.box;
  halo_.exchange(x_);
  kernels::stencil_apply(box, pb_.a, x_, q_);
  double local[3] = {0, 0, 0};  // ||b - A x||^2, ||b||^2, sum e^2
  double emax = 0;
  for (int k = 1; k <= box.nz; ++k)
    for (int j = 1; j <= box.ny; ++j)
      for (int i = 1; i <= box.nx; ++i) {
        const std::size_t at = box.at(i, j, k);
        const double t = pb_.b(at) - q_(at), err = x_(at) - pb_.exact(at);
        local[0] += t * t;
        local[1] += pb_.b(at) * pb_.b(at);
        local[2] += err * err;
        emax = std::max(emax, std::fabs(err));
      }
  double global[3];
  MPI_Allreduce(local, global, 3, MPI_DOUBLE, MPI_SUM, d_.cart);
  MPI_Allreduce(MPI_IN_PLACE, &emax, 1, MPI_DOUBLE, MPI_MAX, d_.cart);
  res.true_rel_residual = std::sqrt(global[0] / global[1]);
  res.err_max = emax;
  res.err_l2 = std::sqrt(global[2] * pb_.h[0] * pb_.h[1] * pb_.h[2]);
  std::uint64_t h = field_digest(d_, x_);
  for (double r : res.history) {
    std::uint64_t bits;
    std::memcpy(&bits, &r, sizeof bits);
    h = (h ^ bits) * 0x100000001b3ULL;
  }
  res.digest = h ^ static_cast<std::uint64_t>(res.iterations);
}

}  // namespace pcoll::cg
