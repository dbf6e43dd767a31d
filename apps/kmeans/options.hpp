// Options of the k-means driver: a TOML deck (inputs/kmeans/*.toml) and command-line flags that
// override it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace pcoll::kmeans {

struct Options {
  std::string deck;       // path of the deck read, "" if none
  std::string deck_name;  // its `name` ("polaris"), or "custom"
  // problem
  int dim = 8;
  int clusters = 8;
  std::int64_t points_per_rank = 100;  // used when points == 0: global points = this * P
  std::int64_t points = 0;             // global number of points (fixed whatever P)
  int iterations = 20;                 // maximum Lloyd iterations per run
  bool stop_when_converged = true;     // false: always `iterations` (controlled benchmark volume)
  // synthetic data (ignored with input)
  std::uint64_t seed = 42;
  int blobs = 0;  // 0 = clusters
  double spread = 10.0;
  double sigma = 1.0;
  int quantize_bits = 20;
  // real data: "file.h5:/dataset" (2-D, points x dim); quantize_input rounds it like the generator
  std::string input;
  int quantize_input = 0;
  std::string write_points;  // write the (generated or read) global point set to "file.h5:/dset"
  // runs
  std::vector<std::string> allreduce;  // algorithms compared in one launch; empty: environment
  int runs = 1;
  int warmup = 0;
  // sum: the K*D centroid sums are doubles (exact on grid data, else order-dependent in the last
  // bits); reproducible: binned sums (PCOLL_Binned), the same bits for every algorithm and P
  std::string reduction = "sum";
  // output
  std::string csv;     // per-run rows (rank 0)
  std::string output;  // HDF5 results file with per-iteration, per-rank phase times (rank 0)
  std::string trace;   // pcoll trace file (PCOLL_Trace_start): calls + kmeans phases per iteration
  std::string centroids_out;  // text dump of the final centroids (hexfloat), for tests
  bool quiet = false;
  // SMPI builds only: simulated seconds of computation charged per iteration and rank (the
  // kernels still run for real, but simulation runs with smpi/simulate-computation:no, so this
  // measured value, not the host's wall clock, is what the simulated ranks spend).
  double sim_compute_per_iteration = 0;
  std::string command_line;
};

// Parses argv (reading --deck first, then letting every other flag override it). Returns false
// after printing help (exit code 0) or a usage error (exit code != 0), both only if `speak`
// (rank 0), and throws std::runtime_error on a bad deck.
bool parse_options(int argc, char **argv, Options &opt, int &exit_code, bool speak = true);

// Resolves a deck argument: an existing path, or a name looked up in the installed decks
// directory ("polaris" -> <decks>/polaris.toml).
std::string resolve_deck(const std::string &deck);

}  // namespace pcoll::kmeans
