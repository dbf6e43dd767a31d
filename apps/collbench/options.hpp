// collbench's command line (CLI11). One struct, filled once, identical on every rank.
#pragma once

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

namespace collbench {

struct Options {
  std::string coll = "allreduce";
  std::vector<std::string> algos;  // empty: vendor + every algorithm of the collective
  std::string type = "double";
  std::string layout = "contiguous";  // or "strided": a gap of one element after each
  std::size_t min_bytes = 8, max_bytes = 4u << 20;  // power-of-two sweep
  std::vector<std::size_t> sizes;                   // explicit byte sizes (override min/max)
  std::vector<std::size_t> segments;                // --per-rank-segment S: count = P*S elements
  int trials = 31, warmup = 5;
  unsigned seed = 42;
  bool in_place = false;
  bool cold = false;  // fresh (rotating) buffers + cache eviction before each call
  std::size_t cold_bytes = 32u << 20;
  int skew_rank = -1;  // arrival-skew mode: delay this rank ...
  double skew_us = 0;  // ... by this many microseconds after the barrier
  bool pingpong = false, pingpong_only = false;
  double alpha = -1, beta = -1;  // model overrides (s, s/B); <0: config or ping-pong
  bool overhead = true;          // measure the tracing-off overhead at 8 B first
  std::string csv, log;
  bool trace_calls = true;  // with --log: per-call trace records in the same file
  bool quiet = false;
  bool list = false;  // print the collectives and their algorithms, then exit
  int corrupt_for_test = 0;  // hidden: flip one result value (tests the verification)
};

// Parses argv; on --help or an error prints (rank 0) and exits (after MPI_Finalize).
Options parse_options(int argc, char **argv, int rank);

// One --algos entry: an algorithm, optionally with parameter settings that hold for its calls
// only, "chiara:chiara_batch=16:chiara_kag=4" (parameter names as in pcoll-info; the whole entry
// is the row's label). One run can then compare variants of one algorithm, which matters where
// starting a run is the expensive part (thousands of simulated ranks).
struct AlgoVariant {
  std::string algorithm;
  std::vector<std::pair<std::string, std::string>> settings;
};
// Splits an entry; throws std::invalid_argument on an empty name or a setting without '='.
AlgoVariant parse_variant(const std::string &entry);

// "8", "4k", "4KiB", "1m" -> bytes; throws std::invalid_argument.
std::size_t parse_size(const std::string &s);
std::string human_bytes(std::size_t b);

}  // namespace collbench
