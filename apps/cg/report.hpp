// What the CG driver reports (rank 0): a line per run, a summary per algorithm, a CSV with one
// row per run for scripts/reproduce-cg.sh, and an HDF5 file with every rank's phase times per
// iteration; and the refinement table.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

namespace pcoll::cg {

struct RunSetup {
  std::string deck, solver, pc, reduction;
  bool overlap = true;
  int ranks = 1, threads = 1;
  int global[3] = {0, 0, 0}, dims[3] = {0, 0, 0};
  double tol = 0;
  int max_iterations = 0, runs = 0, warmup = 0;
  std::vector<std::string> algorithms, phases;
  std::string command_line;
};

// One run on the critical path: the split is that of the rank whose solve took longest, so the
// phases + other = total exactly; other is the setup before the first iteration, the stopping
// tests and the timers.
struct RunRecord {
  std::string algorithm, served;
  int rep = 0;
  bool warmup = false;
  int iterations = 0;
  bool converged = false;
  double rel_residual = 0, true_rel_residual = 0, err_max = 0, err_l2 = 0;
  std::uint64_t digest = 0;
  int critical_rank = 0;
  double total = 0, other = 0;
  std::vector<double> phase;          // [phase] seconds summed over iterations (critical rank)
  std::vector<double> per_iteration;  // [iteration][rank][phase], kept for the HDF5 file
  std::vector<double> wall;           // [rank]
  double per_iter() const { return iterations > 0 ? total / iterations : 0; }
};

// A phase is an allreduce when its name starts with "dot".
bool is_allreduce(const std::string &phase);

void print_header(std::ostream &os, const RunSetup &s);
void print_run(std::ostream &os, const RunSetup &s, const RunRecord &r, bool first);
// Per algorithm over the timed runs. Returns false when runs that must be bitwise identical
// (reduction = reproducible) differ.
bool print_summary(std::ostream &os, const RunSetup &s, const std::vector<RunRecord> &runs);
void write_csv(const std::string &path, const RunSetup &s, const std::vector<RunRecord> &runs);
void write_results_h5(const std::string &path, const RunSetup &s,
                      const std::vector<RunRecord> &runs);

struct RefinementRow {
  int n[3];
  double h;
  int iterations;
  double err_max, err_l2;
};
void print_refinement(std::ostream &os, const std::vector<RefinementRow> &rows);

}  // namespace pcoll::cg
