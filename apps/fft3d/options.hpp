// Options of the fft3d driver: a TOML deck (inputs/fft3d/*.toml) and command-line flags that
// override it.
#pragma once

#include <array>
#include <string>
#include <vector>

namespace pcoll::fft3d {

struct Options {
  std::string deck;       // path of the deck read, "" if none
  std::string deck_name;  // its `name`, or "custom"
  // problem
  std::array<int, 3> grid{32, 32, 32};  // N0 x N1 x N2 (with weak: N0 per rank)
  bool weak = false;                    // global N0 = grid[0] * P (weak scaling)
  std::string decomp = "auto";          // slab | pencil | auto
  std::string field = "waves";          // waves | random
  std::string transform = "c2c";        // c2c | r2c
  // runs
  std::vector<std::string> alltoall;  // algorithms compared in one launch; empty: environment
  bool fftw_mpi = true;               // also time FFTW-MPI's own transform (the anchor)
  std::string planner = "measure";    // FFTW planner: estimate | measure | patient
  int runs = 3;
  int warmup = 1;
  int iterations = 5;  // forward + backward pairs per run
  // Pieces per transpose, overlapped with the local FFTs (1: off); several values are compared
  // in one launch like the algorithms (every algorithm with each).
  std::vector<int> overlap{1};
  // output
  std::string csv;     // per-run rows (rank 0)
  std::string output;  // HDF5 results file: per transform and rank, the time split
  std::string trace;   // pcoll trace (PCOLL_Trace_start)
  bool quiet = false;
  // SMPI builds only: seconds of local FFT charged per transform (DistributedFft::set_injected_fft)
  double sim_fft_per_transform = 0;
  std::string command_line;
};

// The allowed values of the enumerated options, declared once (flags, deck keys and messages).
inline const std::vector<std::string> &decomp_values() {
  static const std::vector<std::string> v = {"slab", "pencil", "auto"};
  return v;
}
inline const std::vector<std::string> &field_values() {
  static const std::vector<std::string> v = {"waves", "random"};
  return v;
}
inline const std::vector<std::string> &transform_values() {
  static const std::vector<std::string> v = {"c2c", "r2c"};
  return v;
}
inline const std::vector<std::string> &planner_values() {
  static const std::vector<std::string> v = {"estimate", "measure", "patient"};
  return v;
}

// Parses argv (--deck first, then every other flag overrides it). Returns false after printing
// help (exit code 0) or a usage error (exit code != 0), both only if `speak` (rank 0); throws
// std::runtime_error on a bad deck or value (the message names the key or flag, the value and
// what is allowed).
bool parse_options(int argc, char **argv, Options &opt, int &exit_code, bool speak = true);

// An existing path, or a name in the installed decks directory ("quick" -> <decks>/quick.toml).
std::string resolve_deck(const std::string &deck);

}  // namespace pcoll::fft3d
