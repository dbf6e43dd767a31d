// Options of the CG driver: a TOML deck (inputs/cg/*.toml) and command-line flags that override
// it. Every deck key is declared once, in options.cpp's table, which gives its section, its flag
// (the key with '-' for '_'), its help text and its check; the deck reader and CLI11 both read
// that table, so a key cannot exist in one and not the other.
#pragma once

#include <string>
#include <vector>

namespace pcoll::cg {

struct Options {
  std::string deck;       // path of the deck read, "" if none
  std::string deck_name;  // its `name`, or "custom"
  // [grid]: the global grid, or (weak scaling) a fixed local grid per rank
  int nx = 16, ny = 16, nz = 16;
  int local_nx = 0, local_ny = 0, local_nz = 0;  // > 0: global n = process grid dims * local n
  // [solver]
  std::string solver = "cg";      // cg | cg1 | pipecg
  std::string pc = "none";        // none | jacobi
  double tol = 1e-8;              // relative residual ||r|| / ||b||
  int max_iterations = 1000;      //
  std::string reduction = "sum";  // sum | reproducible (see Reducer in solver.hpp)
  bool overlap = true;            // pipecg: PCOLL_Iallreduce overlapping the stencil
  // [run]
  std::vector<std::string> allreduce;  // algorithms compared in one launch; empty: environment
  int runs = 1;
  int warmup = 0;
  int refine = 0;  // > 0: also solve on this many successively refined grids (h halved each)
  // output (flags only)
  std::string csv, output, trace;
  bool quiet = false;
  // SMPI builds only: simulated seconds of computation per local interior point charged in each
  // iteration's stencil phase and (once) in its first vector phase. The kernels still run for
  // real, but simulations run with smpi/simulate-computation:no, so these rates, measured
  // natively (scripts/reproduce-cg.sh --smpi does), are what the simulated ranks spend.
  double sim_stencil_per_point = 0, sim_vector_per_point = 0;
  std::string command_line;
};

// Parses argv (--deck first, then every other flag overrides the deck). Returns false after
// printing help (exit code 0) or a usage error (exit code != 0), both only if `speak`, and throws
// std::runtime_error naming the key, the value and what is allowed on a bad deck or value.
bool parse_options(int argc, char **argv, Options &opt, int &exit_code, bool speak = true);

// Reads a deck into opt (unknown sections or keys, wrong types and bad values are errors).
void load_deck(const std::string &path, Options &opt);

// Checks the values that depend on each other or on a list of names; throws as above.
void validate(const Options &opt);

// A deck argument: an existing path, or a name in the installed decks directory.
std::string resolve_deck(const std::string &deck);

}  // namespace pcoll::cg
