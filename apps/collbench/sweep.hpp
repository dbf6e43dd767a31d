// The timed sweep: for each size, every algorithm in a randomized order each repetition (fixed
// seed, the same order on every rank), warm-ups first, a barrier before each call, the time of
// a call = the maximum over ranks; every result verified against the exact expected values
// outside the timed region. Modes: in place, cache-cold (rotating fresh buffers and cache
// eviction before each call) and arrival skew (one rank waits after the barrier; per-rank time
// inside the call and total time since the barrier are kept).
#pragma once

#include <mpi.h>

#include <string>
#include <vector>

#include "harness.hpp"
#include "model.hpp"
#include "options.hpp"
#include "stats.hpp"

namespace collbench {

struct Result {
  std::string algo;
  std::size_t count = 0, bytes = 0;  // `count` argument; bytes of the whole vector
  std::vector<double> times;         // per timed call, max over ranks (rank 0 only)
  Stats stats;
  double algbw = 0, busbw = 0;  // bytes/s from the median
  double vs_vendor = 0;         // vendor median / this median (0: no vendor in the run)
  long long wrong = 0;          // calls whose result differed on any rank
  bool verified = true;         // false: timing-only shared buffers (SMPI), results not checked
  Prediction pred;
  // Arrival-skew mode (rank 0 only): per rank median time inside the call / since the barrier.
  std::vector<double> skew_inside, skew_total;
};

// The counts the options ask for (for collective `c`, type size, P).
std::vector<std::size_t> sweep_counts(const Options &o, const CollectiveBench &c,
                                      std::size_t type_size, int P);

std::vector<Result> run_sweep(const Options &o, const CollectiveBench &c, const DataType &t,
                              const std::vector<std::string> &algos, const ModelParams &mp,
                              MPI_Comm comm);

struct Overhead {
  Stats direct, through_pcoll;  // seconds per call, PMPI_<Coll> vs PCOLL_<Coll> with vendor
  int reps = 0, calls_per_rep = 0;
};
// Tracing must be off. Alternates blocks of back-to-back 8-byte calls of the two.
Overhead measure_overhead(const CollectiveBench &c, const DataType &t, MPI_Comm comm);

}  // namespace collbench
