// What the k-means driver reports (rank 0): a line per run, a summary per algorithm, a CSV with one
// row per run for the reproduction script, and an HDF5 results file with every rank's phase
// times per iteration.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

namespace pcoll::kmeans {

struct RunSetup {
  std::string deck;
  int ranks = 1, threads = 1, dim = 0, clusters = 0;
  std::int64_t points = 0;
  std::string origin;
  bool exact_sums = false;
  bool reproducible = false;  // reduction = reproducible: binned centroid sums
  int max_iterations = 0;
  bool stop_when_converged = true;
  int runs = 0, warmup = 0;
  std::vector<std::string> algorithms;
  std::string command_line;
};

// One run as seen on the critical path. The split is that of the critical rank (the one whose
// iteration phase took longest), so compute + the three allreduces + other = total exactly;
// other is loop overhead (timers, bookkeeping).
struct RunRecord {
  std::string algorithm, served_counts, served_sums, served_conv;
  int rep = 0;
  int position = 0;  // 0-based place of this run within its repetition (0: ran first)
  bool warmup = false;
  int iterations = 0;
  bool converged = false;
  double inertia = 0;
  std::uint64_t digest = 0;
  int critical_rank = 0;
  double total = 0, compute = 0, ar_counts = 0, ar_sums = 0, ar_conv = 0, other = 0;
  double compute_max = 0;    // max over ranks of the compute time
  double allreduce_max = 0;  // max over ranks of the time inside the three allreduces
  // [iteration][rank][phase: compute, ar_counts, ar_sums, ar_conv], kept for the HDF5 file
  std::vector<double> per_iteration;
  std::vector<double> wall;  // [rank]
};

// The phases of one Lloyd iteration, in the order of the results file's phase_times columns:
// compute, then the three allreduces (counts, sums, convergence).
const std::vector<std::string> &phase_names();

void print_header(std::ostream &os, const RunSetup &s);
void print_run(std::ostream &os, const RunRecord &r, bool first);
// Per algorithm over the timed runs: median +- MAD and p10..p90 of the iteration phase, medians of
// its parts, and the speedup over vendor (or the first algorithm when there is no vendor) with
// its bootstrap interval and verdict (apps/common/speedup.hpp). Returns false if results differ
// where they must be bitwise equal.
bool print_summary(std::ostream &os, const RunSetup &s, const std::vector<RunRecord> &runs);
void write_csv(const std::string &path, const RunSetup &s, const std::vector<RunRecord> &runs);
// Rank 0 only, serial HDF5; throws if built without HDF5.
void write_results_h5(const std::string &path, const RunSetup &s,
                      const std::vector<RunRecord> &runs);

}  // namespace pcoll::kmeans
