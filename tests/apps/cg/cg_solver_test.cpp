// The distributed CG solvers of apps/cg under mpiexec (registered at P = 1, 2, 3, 4, 6, 8):
//  - every solver, with and without Jacobi, converges to the tolerance, its true residual agrees,
//    and its error against the manufactured u is the discretisation error of a tight solve;
//  - the three solvers agree on the solution within what the tolerance allows;
//  - reduction = reproducible: every allreduce algorithm in pcoll's registry (and vendor, auto,
//    and pipecg overlapped with PCOLL_Iallreduce) gives the same iteration count and bitwise the
//    same iterates and residual history, for every solver; and so does every rank count: the
//    solve on the first k ranks, k = 1..P, is bitwise the solve on one rank (digest, history,
//    iterations); reduction = sum gives the same across algorithms at P <= 2, where any order
//    of adding two partial sums is the same;
//  - pipecg overlapped (PCOLL_Iallreduce, completed by PCOLL_Wait) gives bitwise the iterates of
//    pipecg blocking (PCOLL_Allreduce) under every algorithm, in reduction = sum at every P: the
//    nonblocking request runs the blocking call's plan, so the additions are in the same order;
//  - across P only within round-off: the same solve on MPI_COMM_SELF (P = 1) on every rank;
//  - second order: the error falls by ~4 when h halves (7^3, 15^3, 31^3).
#include <mpi.h>

#include <pcoll/pcoll.hpp>

#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "../../common/variants.hpp"
#include "grid.hpp"
#include "solver.hpp"

using namespace pcoll::cg;

namespace {

struct Solved {
  RunResult res;
  std::vector<double> x;  // this rank's interior, x fastest
  std::array<int, 3> first{}, n{};
  double xmax = 0;  // max |x| over all ranks
};

Options options(const std::string &solver, const std::string &pc = "none", double tol = 1e-8) {
  Options o;
  o.solver = solver;
  o.pc = pc;
  o.tol = tol;
  o.max_iterations = 2000;
  return o;
}

// Solves on `comm` with the parameter overrides `set` (algorithm first) applied to the solver's
// own Cartesian communicator, where its allreduces run.
Solved solve(MPI_Comm comm, std::array<int, 3> global, const Options &opt,
             const pcoll_test::Set &set = {}) {
  Decomposition d = make_decomposition(comm, global);
  const Problem pb = make_problem(d, opt.pc == "jacobi");
  Solver solver(d, pb, opt);
  Solved out;
  {
    std::vector<std::unique_ptr<pcoll::ScopedConfig>> use;
    for (const auto &[name, value] : set)
      use.push_back(std::make_unique<pcoll::ScopedConfig>(d.cart, name, value));
    out.res = solver.run();
  }
  const auto &box = d.box;
  auto x = solver.solution();
  for (int k = 1; k <= box.nz; ++k)
    for (int j = 1; j <= box.ny; ++j)
      for (int i = 1; i <= box.nx; ++i) {
        out.x.push_back(x(box.at(i, j, k)));
        out.xmax = std::max(out.xmax, std::fabs(out.x.back()));
      }
  MPI_Allreduce(MPI_IN_PLACE, &out.xmax, 1, MPI_DOUBLE, MPI_MAX, comm);
  out.first = d.first;
  out.n = {box.nx, box.ny, box.nz};
  free_decomposition(d);
  return out;
}

// Largest |a - b| over all ranks.
double max_diff(const Solved &a, const Solved &b) {
  REQUIRE(a.x.size() == b.x.size());
  double m = 0;
  for (std::size_t i = 0; i < a.x.size(); ++i) m = std::max(m, std::fabs(a.x[i] - b.x[i]));
  MPI_Allreduce(MPI_IN_PLACE, &m, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return m;
}

bool bitwise_equal(const std::vector<double> &a, const std::vector<double> &b) {
  int same = a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * 8) == 0;
  MPI_Allreduce(MPI_IN_PLACE, &same, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
  return same != 0;
}

int world_size() {
  int p = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &p);
  return p;
}

constexpr std::array<int, 3> kGrid = {12, 12, 12};

}  // namespace

TEST_CASE("every solver converges to the tolerance with the discretisation error") {
  const Solved ref = solve(MPI_COMM_WORLD, kGrid, options("cg", "none", 1e-13));
  REQUIRE(ref.res.converged);
  for (const char *solver : {"cg", "cg1", "pipecg"})
    for (const char *pc : {"none", "jacobi"}) {
      CAPTURE(solver, pc);
      const Solved s = solve(MPI_COMM_WORLD, kGrid, options(solver, pc));
      REQUIRE(s.res.converged);
      REQUIRE(s.res.rel_residual < 1e-8);
      REQUIRE(s.res.iterations > 10);  // not an eigenvector: a real Krylov solve
      REQUIRE(s.res.history.back() == s.res.rel_residual);
      // The recurrence's residual is the true one up to round-off (pipecg drifts most).
      REQUIRE(s.res.true_rel_residual < 1e-7);
      // Algebraic error <= cond(A) tol |u|, cond ~ 4/(pi h)^2 ~ 70 here: far below the
      // discretisation error (~1e-4), so the error is that of the tight solve.
      REQUIRE(std::fabs(s.res.err_max - ref.res.err_max) < 1e-6);
      REQUIRE(std::fabs(s.res.err_l2 - ref.res.err_l2) < 1e-6);
      // The three solvers, preconditioned or not, find the same discrete solution.
      REQUIRE(max_diff(s, ref) < 1e-6 * ref.xmax);
    }
}

TEST_CASE("reduction = reproducible: every rank count gives bitwise the same iterates") {
  const std::array<int, 3> grid = {10, 9, 11};
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  for (const char *solver : {"cg", "cg1", "pipecg"})
    for (const char *pc : {"none", "jacobi"}) {
      CAPTURE(solver, pc);
      Options opt = options(solver, pc);
      opt.reduction = "reproducible";
      opt.overlap = std::string(solver) == "pipecg";
      const Solved one = solve(MPI_COMM_SELF, grid, opt, {{"allreduce", "auto"}});
      REQUIRE(one.res.converged);
      // Compared locally (the ranks outside a sub-communicator are elsewhere), judged together.
      std::string differs;
      for (int k = 2; k <= world_size(); ++k) {
        MPI_Comm sub = MPI_COMM_NULL;
        MPI_Comm_split(MPI_COMM_WORLD, rank < k ? 0 : MPI_UNDEFINED, rank, &sub);
        if (sub == MPI_COMM_NULL) continue;
        const Solved s = solve(sub, grid, opt, {{"allreduce", k % 2 ? "ring" : "chiara"}});
        MPI_Comm_free(&sub);
        const bool same = s.res.iterations == one.res.iterations &&
                          s.res.history.size() == one.res.history.size() &&
                          std::memcmp(s.res.history.data(), one.res.history.data(),
                                      8 * s.res.history.size()) == 0 &&
                          s.res.digest == one.res.digest;
        if (!same && differs.empty())
          differs = "on " + std::to_string(k) + " ranks: " + std::to_string(s.res.iterations) +
                    " iterations against " + std::to_string(one.res.iterations) + " on one";
      }
      CAPTURE(differs);
      int ok = differs.empty();
      MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
      REQUIRE(ok);
    }
}

TEST_CASE("reduction = reproducible: every allreduce algorithm gives bitwise the same iterates") {
  const auto algos = pcoll_test::variants_of("allreduce", pcoll_test::mpi, true);
  REQUIRE(algos.size() >= 5);
  const std::array<int, 3> grid = {10, 9, 11};
  for (const char *solver : {"cg", "cg1", "pipecg"}) {
    CAPTURE(solver);
    Options opt = options(solver);
    opt.reduction = "reproducible";
    opt.overlap = false;  // pipecg: through PCOLL_Allreduce, so the algorithm matters
    const Solved first = solve(MPI_COMM_WORLD, grid, opt, {{"allreduce", "vendor"}});
    REQUIRE(first.res.converged);
    std::vector<pcoll_test::Set> sets = {{{"allreduce", "auto"}}};
    for (const auto &v : algos) sets.push_back(v.overrides("allreduce"));
    for (const auto &set : sets) {
      std::string label;
      for (const auto &[k, v] : set) label += k + "=" + v + " ";
      CAPTURE(label);
      const Solved s = solve(MPI_COMM_WORLD, grid, opt, set);
      REQUIRE(s.res.iterations == first.res.iterations);
      REQUIRE(bitwise_equal(s.res.history, first.res.history));
      REQUIRE(bitwise_equal(s.x, first.x));
      REQUIRE(s.res.digest == first.res.digest);
    }
    if (std::string(solver) == "pipecg") {  // overlapped with PCOLL_Iallreduce too
      opt.overlap = true;
      for (const auto &set : sets) {
        const Solved s = solve(MPI_COMM_WORLD, grid, opt, set);
        REQUIRE(bitwise_equal(s.x, first.x));
        REQUIRE(bitwise_equal(s.res.history, first.res.history));
      }
    }
  }
}

TEST_CASE("pipecg overlapped with PCOLL_Iallreduce: bitwise the blocking pipecg, every algorithm") {
  const auto algos = pcoll_test::variants_of("allreduce", pcoll_test::mpi, true);
  REQUIRE(algos.size() >= 5);
  const std::array<int, 3> grid = {10, 9, 11};
  for (const char *pc : {"none", "jacobi"}) {
    CAPTURE(pc);
    Options opt = options("pipecg", pc);  // reduction = sum: the bits follow the algorithm
    std::vector<pcoll_test::Set> sets = {{{"allreduce", "vendor"}}, {{"allreduce", "auto"}}};
    for (const auto &v : algos) sets.push_back(v.overrides("allreduce"));
    for (const auto &set : sets) {
      std::string label;
      for (const auto &[k, v] : set) label += k + "=" + v + " ";
      CAPTURE(label);
      opt.overlap = false;
      const Solved blocking = solve(MPI_COMM_WORLD, grid, opt, set);
      opt.overlap = true;
      const Solved overlapped = solve(MPI_COMM_WORLD, grid, opt, set);
      REQUIRE(blocking.res.converged);
      REQUIRE(overlapped.res.served == blocking.res.served);
      if (set.at(0).second == "vendor") {
        // The vendor's MPI_Iallreduce (libnbc in Open MPI) may add in another order than its
        // MPI_Allreduce: the same solve within round-off, not bitwise.
        REQUIRE(std::abs(overlapped.res.iterations - blocking.res.iterations) <= 1);
        continue;
      }
      REQUIRE(overlapped.res.iterations == blocking.res.iterations);
      REQUIRE(bitwise_equal(overlapped.res.history, blocking.res.history));
      REQUIRE(bitwise_equal(overlapped.x, blocking.x));
      REQUIRE(overlapped.res.digest == blocking.res.digest);
    }
  }
}

TEST_CASE("reduction = sum: bitwise the same for every algorithm at P <= 2") {
  if (world_size() > 2) return;  // three or more partial sums: the order of additions shows
  const Solved first = solve(MPI_COMM_WORLD, kGrid, options("cg"), {{"allreduce", "vendor"}});
  for (const auto &v : pcoll_test::variants_of("allreduce", pcoll_test::mpi)) {
    CAPTURE(v.label);
    const Solved s = solve(MPI_COMM_WORLD, kGrid, options("cg"), v.overrides("allreduce"));
    REQUIRE(bitwise_equal(s.x, first.x));
  }
}

TEST_CASE("across P only within round-off: the same solve on one rank") {
  // Every rank solves the whole problem alone (MPI_COMM_SELF) and compares its block.
  const Solved dist = solve(MPI_COMM_WORLD, kGrid, options("cg", "none", 1e-10));
  const Solved alone = solve(MPI_COMM_SELF, kGrid, options("cg", "none", 1e-10));
  REQUIRE(std::abs(dist.res.iterations - alone.res.iterations) <= 1);
  double m = 0;
  std::size_t at = 0;
  for (int k = 0; k < dist.n[2]; ++k)
    for (int j = 0; j < dist.n[1]; ++j)
      for (int i = 0; i < dist.n[0]; ++i) {
        const std::size_t g = std::size_t(dist.first[0] + i) +
                              std::size_t(kGrid[0]) *
                                  (dist.first[1] + j + std::size_t(kGrid[1]) * (dist.first[2] + k));
        m = std::max(m, std::fabs(dist.x[at++] - alone.x[g]));
      }
  MPI_Allreduce(MPI_IN_PLACE, &m, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  REQUIRE(m < 1e-8 * alone.xmax);
}

TEST_CASE("second order: the error falls by ~4 when h halves") {
  std::vector<RunResult> levels;
  for (int n : {7, 15, 31})
    levels.push_back(solve(MPI_COMM_WORLD, {n, n, n}, options("cg", "none", 1e-11)).res);
  for (std::size_t l = 1; l < levels.size(); ++l) {
    const double rmax = levels[l - 1].err_max / levels[l].err_max;
    const double rl2 = levels[l - 1].err_l2 / levels[l].err_l2;
    CAPTURE(l, rmax, rl2);
    REQUIRE(rmax > 3.6);
    REQUIRE(rmax < 4.4);
    REQUIRE(rl2 > 3.6);
    REQUIRE(rl2 < 4.4);
  }
}
