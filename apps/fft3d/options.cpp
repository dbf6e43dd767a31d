// Deck (TOML) + command line (CLI11) for the fft3d driver: the deck gives the defaults, any flag
// given on the command line wins. Values are checked once, after both, with messages that name
// the key or flag.
#include "../smpi_compat.hpp"  // first: see there

#include "options.hpp"

#include "../common/deck.hpp"

#include <toml++/toml.h>
#include <CLI/CLI.hpp>

#include <algorithm>
#include <filesystem>
#include <set>
#include <sstream>
#include <stdexcept>

#ifndef PCOLL_FFT3D_DECK_DIR
#define PCOLL_FFT3D_DECK_DIR "inputs/fft3d"
#endif

namespace pcoll::fft3d {

namespace {

std::string joined(const std::vector<std::string> &v, const char *sep = "|") {
  std::string s;
  for (const auto &x : v) s += (s.empty() ? "" : sep) + x;
  return s;
}

[[noreturn]] void bad(const std::string &where, const std::string &what) {
  throw std::runtime_error(where + ": " + what);
}

template <class T>
void take(const toml::table &section, const std::string &where, const char *key, T &out) {
  const toml::node *node = section.get(key);
  if (node == nullptr) return;
  if constexpr (std::is_same_v<T, bool>) {
    if (auto v = node->value<bool>()) return void(out = *v);
    bad(where, std::string("'") + key + "' must be true or false");
  } else if constexpr (std::is_same_v<T, std::string>) {
    if (auto v = node->value<std::string>()) return void(out = *v);
    bad(where, std::string("'") + key + "' must be a string");
  } else {
    if (auto v = node->value<std::int64_t>(); v && *v >= 0 && *v <= INT32_MAX)
      return void(out = static_cast<T>(*v));
    bad(where, std::string("'") + key + "' must be an integer >= 0");
  }
}

void only_known(const toml::table &section, const std::string &where,
                const std::set<std::string> &known) {
  for (const auto &[key, node] : section) {
    (void)node;
    if (known.count(std::string(key.str())) == 0)
      bad(where, "unknown key '" + std::string(key.str()) +
                     "' (known: " + joined({known.begin(), known.end()}, ", ") + ")");
  }
}

// grid = 64 (a cube) or grid = [N0, N1, N2]; sizes are checked in validate().
void take_grid(const toml::table &section, const std::string &where, std::array<int, 3> &grid) {
  const toml::node *node = section.get("grid");
  if (node == nullptr) return;
  if (auto v = node->value<std::int64_t>()) {
    grid.fill(static_cast<int>(std::clamp<std::int64_t>(*v, INT32_MIN, INT32_MAX)));
    return;
  }
  const toml::array *a = node->as_array();
  if (a == nullptr || a->size() != 3)
    bad(where, "'grid' must be an integer (a cube) or an array of 3 integers [N0, N1, N2]");
  for (std::size_t i = 0; i < 3; ++i) {
    auto v = (*a)[i].value<std::int64_t>();
    if (!v) bad(where, "'grid' must be an array of 3 integers [N0, N1, N2]");
    grid[i] = static_cast<int>(std::clamp<std::int64_t>(*v, INT32_MIN, INT32_MAX));
  }
}

void load_deck(const std::string &path, Options &opt) {
  toml::table deck;
  try {
    deck = toml::parse_file(path);
  } catch (const toml::parse_error &e) {
    std::ostringstream msg;
    msg << path << ": " << e.description() << " at line " << e.source().begin.line;
    throw std::runtime_error(msg.str());
  }
  opt.deck = path;
  opt.deck_name = std::filesystem::path(path).stem().string();
  only_known(deck, path, {"name", "description", "problem", "run"});
  take(deck, path, "name", opt.deck_name);
  if (const auto *p = deck["problem"].as_table()) {
    const std::string where = path + " [problem]";
    only_known(*p, where, {"grid", "weak", "decomp", "field", "transform"});
    take_grid(*p, where, opt.grid);
    take(*p, where, "weak", opt.weak);
    take(*p, where, "decomp", opt.decomp);
    take(*p, where, "field", opt.field);
    take(*p, where, "transform", opt.transform);
  }
  if (const auto *r = deck["run"].as_table()) {
    const std::string where = path + " [run]";
    only_known(*r, where,
               {"alltoall", "fftw_mpi", "planner", "runs", "warmup", "iterations", "overlap"});
    if (const auto *algos = r->get_as<toml::array>("alltoall")) {
      opt.alltoall.clear();
      for (const auto &a : *algos) {
        auto s = a.value<std::string>();
        if (!s) bad(where, "'alltoall' must be a string or an array of strings");
        opt.alltoall.push_back(*s);
      }
    } else {
      std::string one;
      take(*r, where, "alltoall", one);
      if (!one.empty()) opt.alltoall = {one};
    }
    take(*r, where, "fftw_mpi", opt.fftw_mpi);
    take(*r, where, "planner", opt.planner);
    take(*r, where, "runs", opt.runs);
    take(*r, where, "warmup", opt.warmup);
    take(*r, where, "iterations", opt.iterations);
    if (const auto *list = r->get_as<toml::array>("overlap")) {
      opt.overlap.clear();
      for (const auto &v : *list) {
        auto k = v.value<std::int64_t>();
        if (!k || *k > INT32_MAX) bad(where, "'overlap' must be an integer or an array of them");
        opt.overlap.push_back(static_cast<int>(*k));
      }
    } else if (r->get("overlap")) {
      int one = 1;
      take(*r, where, "overlap", one);
      opt.overlap = {one};
    }
  }
}

std::vector<std::string> split_list(const std::vector<std::string> &items) {
  std::vector<std::string> out;
  for (const auto &item : items) {
    std::stringstream ss(item);
    std::string name;
    while (std::getline(ss, name, ','))
      if (!name.empty()) out.push_back(name);
  }
  return out;
}

void one_of(const std::string &name, const std::string &value,
            const std::vector<std::string> &allowed) {
  if (std::find(allowed.begin(), allowed.end(), value) == allowed.end())
    throw std::runtime_error(name + " '" + value + "' is not allowed (allowed: " + joined(allowed) +
                             ")");
}

// After deck and flags: every value in range, each message naming the flag and the deck key.
void validate(const Options &opt) {
  for (int a = 0; a < 3; ++a)
    if (opt.grid[a] < 1)
      throw std::runtime_error("--grid (deck: grid) " + std::to_string(opt.grid[0]) + "x" +
                               std::to_string(opt.grid[1]) + "x" + std::to_string(opt.grid[2]) +
                               ": every size must be a positive integer");
  one_of("--decomp (deck: decomp)", opt.decomp, decomp_values());
  one_of("--field (deck: field)", opt.field, field_values());
  one_of("--transform (deck: transform)", opt.transform, transform_values());
  one_of("--planner (deck: planner)", opt.planner, planner_values());
  if (opt.iterations < 1)
    throw std::runtime_error("--iterations (deck: iterations) " + std::to_string(opt.iterations) +
                             ": must be at least 1");
  if (opt.overlap.empty())
    throw std::runtime_error("--overlap (deck: overlap): give at least one piece count");
  for (int k : opt.overlap)
    if (k < 1)
      throw std::runtime_error("--overlap (deck: overlap) " + std::to_string(k) +
                               ": must be at least 1 (1: the transposes do not overlap)");
}

}  // namespace

std::string resolve_deck(const std::string &deck) {
  return apps::resolve_deck(deck, PCOLL_FFT3D_DECK_DIR);
}

bool parse_options(int argc, char **argv, Options &opt, int &exit_code, bool speak) {
  exit_code = 0;
  opt.command_line = apps::command_line(argc, argv);
  // Pass 1: only --deck, so the deck's values become the defaults of pass 2.
  if (const std::string deck = apps::deck_argument(argc, argv); !deck.empty())
    load_deck(resolve_deck(deck), opt);

  CLI::App app{
      "pcoll 3-D FFT case study: a distributed complex-to-complex FFT (slab or pencil "
      "decomposition) whose global transposes go through PCOLL_Alltoall / PCOLL_Alltoallv; local "
      "FFTs with FFTW (OMP_NUM_THREADS threads per rank), pack/unpack on Kokkos; FFTW-MPI's own "
      "transform is timed beside it as the anchor",
      "fft3d"};
  std::string deck_unused;
  app.add_option("--deck", deck_unused,
                 "TOML deck: a path, or a name in " PCOLL_FFT3D_DECK_DIR
                 " (quick, medium, weak); flags override it");
  std::vector<int> grid;
  app.add_option("--grid", grid,
                 "global grid N0,N1,N2 (or one N for a cube); with --weak N0 is per rank")
      ->delimiter(',')
      ->expected(1, 3);
  app.add_flag("--weak,!--strong", opt.weak,
               "weak scaling: the global N0 is the grid's N0 times P (default from the deck)");
  app.add_option("--decomp", opt.decomp,
                 "slab (1-D process grid, one transpose), pencil (2-D, MPI_Dims_create, two), "
                 "auto (slab when N0 >= P and N1 >= P)")
      ->capture_default_str();
  app.add_option("--field", opt.field,
                 "input: waves (plane waves, exact spikes checked) or random (hash of the index)")
      ->capture_default_str();
  app.add_option("--transform", opt.transform,
                 "c2c (complex to complex) or r2c (real input, N0 x N1 x (N2/2+1) half "
                 "spectrum; GFlop/s then count 2.5 N log2 N)")
      ->capture_default_str();
  std::vector<std::string> algos;
  app.add_option("--alltoall", algos,
                 "all-to-all algorithm(s) of the transposes, comma-separated, compared in one "
                 "launch in rotating order (vendor, routed, pairwise, ...; default: "
                 "PCOLL_ALLTOALL or auto); uneven grids use PCOLL_Alltoallv with the same name");
  app.add_flag("--fftw-mpi,!--no-fftw-mpi", opt.fftw_mpi,
               "also time FFTW-MPI's own transform (fftw_mpi_plan_dft_3d) as the anchor");
  app.add_option("--planner", opt.planner, "FFTW planner effort: estimate, measure, patient")
      ->capture_default_str();
  app.add_option("--runs", opt.runs, "timed runs per algorithm")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  app.add_option("--warmup", opt.warmup, "untimed warm-up runs per algorithm")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  app.add_option("--iterations", opt.iterations, "forward + backward transform pairs per run")
      ->capture_default_str();
  app.add_option("--overlap", opt.overlap,
                 "cut every transpose into this many pieces (PCOLL_Ialltoall/v each) along the "
                 "axis it keeps, overlapped with the local FFTs before and after it (1: off); "
                 "comma-separated values are compared in one launch, each with every algorithm")
      ->delimiter(',')
      ->capture_default_str();
  app.add_option("--csv", opt.csv, "write one row per run (rank 0)");
  app.add_option("--output", opt.output,
                 "HDF5 results file: per run, transform and rank the time split (fft, pack, "
                 "alltoall, unpack)");
  app.add_option("--trace", opt.trace,
                 "pcoll trace (HDF5, docs/trace-format.md): every all-to-all call and, per "
                 "transform, the fft/pack/alltoall/unpack phases of every rank");
  app.add_flag("-q,--quiet", opt.quiet, "only the summary");
#ifdef PCOLL_SMPI
  app.add_option("--sim-fft-per-transform", opt.sim_fft_per_transform,
                 "simulation: seconds of local FFT each rank is charged per transform, measured "
                 "natively for the same grid and P (the fft column of fft3d's summary); run with "
                 "--cfg=smpi/simulate-computation:no so the host's own time is not counted too")
      ->check(CLI::NonNegativeNumber);
#endif
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError &e) {
    std::ostringstream quiet;
    exit_code = speak ? app.exit(e) : app.exit(e, quiet, quiet);
    return false;
  }
  if (grid.size() == 1) opt.grid.fill(grid[0]);
  if (grid.size() == 2)
    throw std::runtime_error("--grid: give one size (a cube) or three (N0,N1,N2), not two");
  if (grid.size() == 3) opt.grid = {grid[0], grid[1], grid[2]};
  if (!algos.empty()) opt.alltoall = split_list(algos);
  if (opt.deck.empty()) opt.deck_name = "custom";
  validate(opt);
  return true;
}

}  // namespace pcoll::fft3d
