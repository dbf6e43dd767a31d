// The CG driver; see driver.hpp.
#include "driver.hpp"

#include <pcoll/trace.h>
#include <pcoll/pcoll.hpp>

#include <iostream>

#include "../common/phase_record.hpp"
#include "grid.hpp"
#include "report.hpp"
#include "solver.hpp"

namespace pcoll::cg {

namespace {

// Gathers one run's phase times to rank 0 (apps/common/phase_record.hpp) and fills the record
// there: the critical-path split, and every rank's iterations when they go to the HDF5 file.
RunRecord collect(MPI_Comm comm, const RunResult &res, bool keep_iterations) {
  const apps::PhaseRecord mine(res.phases, res.times);
  apps::GatheredPhases g = apps::gather_phases(comm, res.wall, mine, keep_iterations);
  RunRecord r;
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  if (rank != 0) return r;
  r.iterations = res.iterations;
  r.converged = res.converged;
  r.rel_residual = res.rel_residual;
  r.true_rel_residual = res.true_rel_residual;
  r.err_max = res.err_max;
  r.err_l2 = res.err_l2;
  r.digest = res.digest;
  r.served = res.served;
  r.wall = g.wall;
  r.total = g.total;
  r.critical_rank = g.critical_rank;
  const double *c = g.sums_of(r.critical_rank);
  r.phase.assign(c, c + g.phases);
  r.other = r.total;
  for (double t : r.phase) r.other -= t;
  r.per_iteration = std::move(g.per_iteration);
  return r;
}

std::array<int, 3> global_grid(const Options &opt, const std::array<int, 3> &dims) {
  if (opt.local_nx > 0)
    return {dims[0] * opt.local_nx, dims[1] * opt.local_ny, dims[2] * opt.local_nz};
  return {opt.nx, opt.ny, opt.nz};
}

Decomposition decompose(MPI_Comm comm, const std::array<int, 3> &global,
                        const std::array<int, 3> &dims) {
  try {
    return make_decomposition(comm, global, dims);
  } catch (const std::invalid_argument &e) {
    throw ConfigError(e.what());
  }
}

// Solves on the grid, then on grids with h halved `levels` times (n -> 2n + 1 keeps the old
// points on the new grid), with the first algorithm; rank 0 prints the error table.
void refinement(MPI_Comm comm, const Options &opt, const std::array<int, 3> &dims,
                std::array<int, 3> global) {
  // Each level has its own Cartesian communicator, so the algorithm is set on each.
  const std::string algo = opt.allreduce.empty() ? "" : opt.allreduce.front();
  std::vector<RefinementRow> rows;
  for (int level = 0; level <= opt.refine; ++level) {
    Decomposition d = decompose(comm, global, dims);
    const Problem pb = make_problem(d, opt.pc == "jacobi");
    Solver solver(d, pb, opt);
    RunResult res;
    if (!algo.empty()) {
      pcoll::ScopedConfig use(d.cart, "allreduce", algo);
      res = solver.run();
    } else {
      res = solver.run();
    }
    rows.push_back(
        {{global[0], global[1], global[2]}, pb.h[0], res.iterations, res.err_max, res.err_l2});
    free_decomposition(d);
    for (int &n : global) n = 2 * n + 1;
  }
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  if (rank == 0) print_refinement(std::cout, rows);
}

}  // namespace

int run_driver(MPI_Comm comm, const Options &opt) {
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  const std::array<int, 3> dims = process_grid(size);
  const std::array<int, 3> global = global_grid(opt, dims);
  Decomposition d = decompose(comm, global, dims);
  if (!opt.trace.empty() && PCOLL_Trace_start(opt.trace.c_str()) != MPI_SUCCESS)
    throw std::runtime_error("cannot trace into " + opt.trace + " (pcoll built without HDF5?)");
  const Problem pb = make_problem(d, opt.pc == "jacobi");
  Solver solver(d, pb, opt);

  // No --allreduce: whatever PCOLL_ALLREDUCE (or auto) selects, named after it.
  const bool override_algo = !opt.allreduce.empty();
  std::vector<std::string> algorithms = opt.allreduce;
  if (!override_algo) {
    const char *configured = "auto";
    PCOLL_Config_get(d.cart, "allreduce", &configured);
    algorithms = {configured};
  }
  RunSetup setup;
  setup.deck = opt.deck_name;
  setup.solver = opt.solver;
  setup.pc = opt.pc;
  setup.reduction = opt.reduction;
  setup.overlap = opt.overlap;
  setup.ranks = size;
  setup.threads = Kokkos::DefaultHostExecutionSpace::concurrency();
  for (int a = 0; a < 3; ++a) {
    setup.global[a] = global[a];
    setup.dims[a] = dims[a];
  }
  setup.tol = opt.tol;
  setup.max_iterations = opt.max_iterations;
  setup.runs = opt.runs;
  setup.warmup = opt.warmup;
  setup.algorithms = algorithms;
  setup.command_line = opt.command_line;
  if (rank == 0) print_header(std::cout, setup);

  const bool keep_iterations = !opt.output.empty();
  std::vector<RunRecord> records;
  const int n = static_cast<int>(algorithms.size());
  for (int rep = 0; rep < opt.warmup + opt.runs; ++rep) {
    // Rotating order: each algorithm runs in every position equally often, so slow drifts of the
    // machine (other jobs) do not favour one of them.
    for (int j = 0; j < n; ++j) {
      const std::string &name = algorithms[(j + rep) % n];
      RunResult res;
      if (override_algo) {
        pcoll::ScopedConfig use(d.cart, "allreduce", name);
        res = solver.run();
      } else {
        res = solver.run();
      }
      if (setup.phases.empty()) setup.phases = res.phases;
      RunRecord rec = collect(d.cart, res, keep_iterations);
      if (rank == 0) {
        rec.algorithm = name;
        rec.warmup = rep < opt.warmup;
        rec.rep = rec.warmup ? rep : rep - opt.warmup;
        if (!opt.quiet) print_run(std::cout, setup, rec, records.empty());
        records.push_back(std::move(rec));
      }
    }
  }
  if (!opt.trace.empty() && PCOLL_Trace_stop() != MPI_SUCCESS)
    throw std::runtime_error("writing the trace " + opt.trace + " failed");

  int ok = 1;
  if (rank == 0) {
    ok = print_summary(std::cout, setup, records) ? 1 : 0;
    std::cout.flush();
    if (!opt.csv.empty()) write_csv(opt.csv, setup, records);
    if (!opt.output.empty()) write_results_h5(opt.output, setup, records);
  }
  free_decomposition(d);
  if (opt.refine > 0) refinement(comm, opt, dims, global);
  // Every rank returns rank 0's verdict (only rank 0 can set ok = 0).
  MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, comm);
  return ok ? 0 : 3;
}

}  // namespace pcoll::cg
