// The k-means driver; see driver.hpp.
#include "driver.hpp"

#include <pcoll/trace.h>
#include <pcoll/pcoll.hpp>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <stdexcept>

#include "../common/phase_record.hpp"
#include "../common/run_order.hpp"
#include "report.hpp"
#include "solver.hpp"

namespace pcoll::kmeans {

namespace {

// Gathers one run's phase times to rank 0 (apps/common/phase_record.hpp) and fills the record
// there: the critical-path split, and every rank's iterations when they go to the HDF5 file.
RunRecord collect(MPI_Comm comm, const RunResult &res, bool keep_iterations) {
  apps::PhaseRecord mine(phase_names());
  mine.reserve(res.per_iteration.size());
  for (const PhaseTimes &t : res.per_iteration)
    mine.add({t.compute, t.ar_counts, t.ar_sums, t.ar_conv});
  apps::GatheredPhases g = apps::gather_phases(comm, res.wall, mine, keep_iterations);
  RunRecord r;
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  if (rank != 0) return r;
  r.iterations = res.iterations;
  r.converged = res.converged;
  r.inertia = res.inertia;
  r.digest = res.digest;
  r.served_counts = res.served_counts;
  r.served_sums = res.served_sums;
  r.served_conv = res.served_conv;
  r.wall = g.wall;
  r.total = g.total;
  r.critical_rank = g.critical_rank;
  for (int p = 0; p < g.ranks; ++p) {
    const double *v = g.sums_of(p);  // compute, ar_counts, ar_sums, ar_conv
    r.compute_max = std::max(r.compute_max, v[0]);
    r.allreduce_max = std::max(r.allreduce_max, v[1] + v[2] + v[3]);
  }
  const double *c = g.sums_of(r.critical_rank);
  r.compute = c[0];
  r.ar_counts = c[1];
  r.ar_sums = c[2];
  r.ar_conv = c[3];
  r.other = r.total - (r.compute + r.ar_counts + r.ar_sums + r.ar_conv);
  r.per_iteration = std::move(g.per_iteration);
  return r;
}

void write_centroids(const std::string &path, kernels::ConstMatrix c) {
  std::FILE *f = std::fopen(path.c_str(), "w");
  if (f == nullptr) throw std::runtime_error("cannot write " + path);
  for (std::size_t k = 0; k < c.extent(0); ++k)
    for (std::size_t d = 0; d < c.extent(1); ++d)
      std::fprintf(f, "%a%c", c(k, d), d + 1 == c.extent(1) ? '\n' : ' ');
  std::fclose(f);
}

}  // namespace

int run_driver(MPI_Comm comm, const Options &opt) {
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  if (!opt.trace.empty() && PCOLL_Trace_start(opt.trace.c_str()) != MPI_SUCCESS)
    throw std::runtime_error("cannot trace into " + opt.trace + " (pcoll built without HDF5?)");
  const Problem problem = make_problem(comm, opt);
  LloydSolver solver(comm, problem, opt.reduction == "reproducible");
  solver.set_injected_compute(opt.sim_compute_per_iteration);

  // No --allreduce: whatever PCOLL_ALLREDUCE (or auto) selects, named after it.
  const bool override_algo = !opt.allreduce.empty();
  std::vector<std::string> algorithms = opt.allreduce;
  if (!override_algo) {
    const char *configured = "auto";  // PCOLL_ALLREDUCE as pcoll resolved it
    PCOLL_Config_get(comm, "allreduce", &configured);
    algorithms = {configured};
  }

  RunSetup setup;
  setup.deck = opt.deck_name;
  setup.ranks = size;
  setup.threads = Kokkos::DefaultHostExecutionSpace::concurrency();
  setup.dim = static_cast<int>(problem.initial.extent(1));
  setup.clusters = static_cast<int>(problem.initial.extent(0));
  setup.points = problem.global_points;
  setup.origin = problem.origin;
  setup.exact_sums = problem.exact_sums;
  setup.reproducible = opt.reduction == "reproducible";
  if (setup.reproducible) setup.origin += "; reduction = reproducible (binned centroid sums)";
  setup.max_iterations = opt.iterations;
  setup.stop_when_converged = opt.stop_when_converged;
  setup.runs = opt.runs;
  setup.warmup = opt.warmup;
  setup.algorithms = algorithms;
  setup.command_line = opt.command_line;
  if (rank == 0) print_header(std::cout, setup);

  const bool keep_iterations = !opt.output.empty();
  std::vector<RunRecord> records;
  const int n = static_cast<int>(algorithms.size());
  for (int rep = 0; rep < opt.warmup + opt.runs; ++rep) {
    // Balanced order (apps/common/run_order.hpp): over each period every algorithm runs in every
    // position and after every other one equally often, so neither the first position, which
    // absorbs what the previous run left behind, nor slow drifts of the machine (other jobs,
    // thermal state) favour one of them. The timed runs start at the design's first row, so
    // `--runs` = a multiple of the period is exactly balanced.
    const int period = apps::run_order_period(n);
    const std::vector<int> order =
        apps::run_order(n, ((rep - opt.warmup) % period + period) % period);
    for (int j = 0; j < n; ++j) {
      const std::string &name = algorithms[static_cast<std::size_t>(order[j])];
      RunResult res;
      if (override_algo) {
        pcoll::ScopedConfig use(comm, "allreduce", name);
        res = solver.run(opt.iterations, opt.stop_when_converged);
      } else {
        res = solver.run(opt.iterations, opt.stop_when_converged);
      }
      RunRecord rec = collect(comm, res, keep_iterations);
      if (rank == 0) {
        rec.algorithm = name;
        rec.warmup = rep < opt.warmup;
        rec.rep = rec.warmup ? rep : rep - opt.warmup;
        rec.position = j;
        if (!opt.quiet) print_run(std::cout, rec, records.empty());
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
    if (!opt.centroids_out.empty()) write_centroids(opt.centroids_out, solver.centroids());
  }
  // Every rank returns rank 0's verdict. An allreduce rather than MPI_Bcast: SimGrid 3.32's
  // SMP-aware binomial bcast (its mpich selector's choice) aborts at P = 576 on the Fugaku-like
  // torus ("Actor is gone"), and the result is the same (only rank 0 can set ok = 0).
  MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, comm);
  return ok ? 0 : 3;
}

}  // namespace pcoll::kmeans
