// Distributed Lloyd k-means: every rank owns a block of the points; per iteration it assigns its
// points, accumulates per-cluster counts and sums, and combines them with exactly three
// PCOLL_Allreduce calls (K ints, K*D doubles, 1 int), as in the CHiArA paper's Section VI.
#pragma once

#include <mpi.h>
#include <pcoll/pcoll.h>

#include <pcoll/kernels/kmeans.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "options.hpp"

namespace pcoll::kmeans {

// This rank's points and the initial centroids (identical on every rank).
struct Problem {
  kernels::Matrix points;          // local rows, N_local x D
  std::int64_t first = 0;          // global index of the first local row
  std::int64_t global_points = 0;  // N
  kernels::Matrix initial;         // K x D
  // True when every coordinate is a multiple of 2^-q with |x| <= 64 and N is within
  // exact_sum_limit(q): then all centroid sums are exact and every result is bitwise
  // independent of P, of the thread count and of the allreduce algorithm.
  bool exact_sums = false;
  std::string origin;  // human-readable description of where the points came from
};

// Builds the problem from the options: synthetic blobs by global index, or an HDF5 dataset read
// in parallel (each rank its block of rows). Initial centroid k is global point
// floor(k * N / K) for both. Collective over comm.
Problem make_problem(MPI_Comm comm, const Options &opt);

// One Lloyd iteration's time on this rank, by phase (seconds).
struct PhaseTimes {
  double compute = 0;    // assign + accumulate + centroid update
  double ar_counts = 0;  // PCOLL_Allreduce of K ints
  double ar_sums = 0;    // PCOLL_Allreduce of K*D doubles
  double ar_conv = 0;    // PCOLL_Allreduce of 1 int
};

struct RunResult {
  int iterations = 0;
  bool converged = false;
  double wall = 0;  // this rank's iteration-phase time (barrier, then the loop)
  std::vector<PhaseTimes> per_iteration;
  // Algorithms that served the three calls of the first iteration (PCOLL_Get_last_algorithm).
  std::string served_counts, served_sums, served_conv;
  // Global results, identical on every rank, computed after the timed loop.
  double inertia = 0;        // sum of squared distances to the nearest final centroid
  std::uint64_t digest = 0;  // hash of the final centroids' bits, labels and iteration count
};

class LloydSolver {
 public:
  // reproducible: the centroid sums are binned sums (PCOLL_Binned): every point's coordinates
  // are deposited by its rank, the K*D sums allreduced with the binned op, then rounded once, so
  // the clustering has the same bits for every algorithm, rank count and thread count.
  LloydSolver(MPI_Comm comm, const Problem &problem, bool reproducible = false);

  // One run from the initial centroids: at most max_iterations iterations, stopping early when
  // no point changed cluster if stop_when_converged. Collective over comm.
  RunResult run(int max_iterations, bool stop_when_converged);

  // Simulation (SMPI builds): seconds of computation charged per iteration, see Options.
  void set_injected_compute(double seconds) { injected_compute_ = seconds; }

  kernels::Matrix centroids() const { return centroids_; }
  kernels::Labels labels() const { return labels_; }
  kernels::Counts counts() const { return counts_; }

 private:
  MPI_Comm comm_;
  const Problem &problem_;
  int clusters_, dim_;
  kernels::Matrix centroids_, sums_;
  kernels::Counts counts_;
  kernels::Labels labels_;
  kernels::Vector dist2_;
  kernels::KMeansWorkspace ws_;
  bool reproducible_ = false;
  std::vector<PCOLL_Binned> bins_;         // K*D: this rank's sums, then the global ones
  std::vector<PCOLL_Binned> thread_bins_;  // per block of points: K*D each
  std::vector<int> thread_counts_;         // per block of points: K each
  std::vector<int> order_;                 // point indices, each block's grouped by cluster
  void accumulate_binned();                // counts_ and bins_ from labels_
  long long traced_iterations_ = 0;
  double injected_compute_ = 0;
};

// FNV-1a over the bytes of the centroids (identical on every rank).
std::uint64_t centroid_hash(kernels::ConstMatrix centroids);

}  // namespace pcoll::kmeans
