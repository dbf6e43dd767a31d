// Deck (TOML) + command line (CLI11) for the CG driver, both generated from one table of keys.
#include "../smpi_compat.hpp"  // first: see there

#include "options.hpp"

#include "../common/deck.hpp"

#include <pcoll/pcoll.h>

#include <toml++/toml.h>
#include <CLI/CLI.hpp>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <limits>
#include <sstream>
#include <stdexcept>
#include <variant>

#ifndef PCOLL_CG_DECK_DIR
#define PCOLL_CG_DECK_DIR "inputs/cg"
#endif

namespace pcoll::cg {

namespace {

using Target = std::variant<int *, double *, bool *, std::string *, std::vector<std::string> *>;

// One deck key: [section] key, flag --key (with '-'), help, and what is allowed. Numbers must be
// >= min (or > min when open); strings must be one of `choices` when it is not empty.
struct Key {
  const char *section, *key, *help;
  Target target;
  double min = 0;
  bool open = false;
  std::vector<std::string> choices = {};
};

std::vector<Key> keys(Options &o) {
  return {
      {"grid", "nx", "global interior grid points in x (h = 1/(nx+1))", &o.nx, 1},
      {"grid", "ny", "global interior grid points in y", &o.ny, 1},
      {"grid", "nz", "global interior grid points in z", &o.nz, 1},
      {"grid", "local_nx", "weak scaling: points per rank in x (global nx = px * this; 0 = off)",
       &o.local_nx, 0},
      {"grid", "local_ny", "weak scaling: points per rank in y (0 = off)", &o.local_ny, 0},
      {"grid", "local_nz", "weak scaling: points per rank in z (0 = off)", &o.local_nz, 0},
      {"solver",
       "solver",
       "cg: textbook (2 allreduces of 1 double per iteration); cg1: Chronopoulos-Gear (1 of 3); "
       "pipecg: Ghysels-Vanroose pipelined (1 of 3, overlapping the stencil)",
       &o.solver,
       0,
       false,
       {"cg", "cg1", "pipecg"}},
      {"solver", "pc", "preconditioner", &o.pc, 0, false, {"none", "jacobi"}},
      {"solver", "tol", "stop when ||r|| / ||b|| < tol", &o.tol, 0, true},
      {"solver", "max_iterations", "iterations at most", &o.max_iterations, 1},
      {"solver",
       "reduction",
       "sum: each dot product is one double per rank, summed by the allreduce (the latency-bound "
       "workload; the bits depend on the algorithm's order of additions); reproducible: each "
       "rank's dot products are binned sums of its points' products (PCOLL_Binned), allreduced "
       "with the binned op, 56 bytes per dot (bitwise the same iterates for every allreduce "
       "algorithm, every rank count and every decomposition of the grid); exact: the old name of "
       "reproducible",
       &o.reduction,
       0,
       false,
       {"sum", "reproducible", "exact"}},
      {"solver", "overlap",
       "pipecg: start the allreduce with PCOLL_Iallreduce (the chosen algorithm, nonblocking) and "
       "apply the stencil while it runs (false: blocking PCOLL_Allreduce before the stencil, no "
       "overlap)",
       &o.overlap},
      {"run", "allreduce",
       "allreduce algorithm(s), comma-separated, compared in one launch in rotating order "
       "(default: PCOLL_ALLREDUCE or auto)",
       &o.allreduce},
      {"run", "runs", "timed runs per algorithm", &o.runs, 0},
      {"run", "warmup", "untimed warm-up runs per algorithm", &o.warmup, 0},
      {"run", "refine",
       "refinement study: also solve on this many grids with h halved each time (n -> 2n+1)",
       &o.refine, 0},
  };
}

std::string flag_of(const Key &k) {
  std::string f = std::string("--") + k.key;
  for (char &c : f)
    if (c == '_') c = '-';
  return f;
}

std::string join(const std::vector<std::string> &v, const char *sep) {
  std::string s;
  for (const auto &x : v) s += (s.empty() ? "" : sep) + x;
  return s;
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

[[noreturn]] void bad(const std::string &where, const Key &k, const std::string &value,
                      const std::string &allowed) {
  throw std::runtime_error(where + ": " + k.key + " = " + value + " is not allowed (" + allowed +
                           ")");
}

// Reads one key from the deck into its target, or says what was expected.
void read_key(const toml::node &node, const std::string &where, const Key &k) {
  std::ostringstream shown;
  node.visit([&](const auto &concrete) { shown << concrete; });
  std::visit(
      [&](auto *t) {
        using T = std::remove_pointer_t<decltype(t)>;
        if constexpr (std::is_same_v<T, std::vector<std::string>>) {
          if (const auto *arr = node.as_array()) {
            t->clear();
            for (const auto &a : *arr) {
              auto s = a.value<std::string>();
              if (!s) bad(where, k, shown.str(), "a list of strings");
              t->push_back(*s);
            }
          } else if (auto s = node.value<std::string>()) {
            *t = split_list({*s});
          } else {
            bad(where, k, shown.str(), "a string or a list of strings");
          }
        } else if constexpr (std::is_same_v<T, double>) {
          auto v = node.value<double>();  // integers convert
          if (!v) bad(where, k, shown.str(), "a number");
          *t = *v;
        } else if constexpr (std::is_same_v<T, int>) {
          auto v = node.value_exact<std::int64_t>();
          if (!v || *v > std::numeric_limits<int>::max() || *v < std::numeric_limits<int>::min())
            bad(where, k, shown.str(), "an integer");
          *t = static_cast<int>(*v);
        } else {
          auto v = node.value_exact<T>();
          if (!v)
            bad(where, k, shown.str(), std::is_same_v<T, bool> ? "true or false" : "a string");
          *t = *v;
        }
      },
      k.target);
}

// The range and choice checks of one key, wherever its value came from.
void check_key(const Key &k, const std::string &where) {
  std::visit(
      [&](auto *t) {
        using T = std::remove_pointer_t<decltype(t)>;
        if constexpr (std::is_same_v<T, int> || std::is_same_v<T, double>) {
          const double v = static_cast<double>(*t);
          if (v < k.min || (k.open && v == k.min)) {
            std::ostringstream lim, val;
            lim << (k.open ? "> " : ">= ") << k.min;
            val << *t;
            bad(where, k, val.str(), "must be " + lim.str());
          }
        } else if constexpr (std::is_same_v<T, std::string>) {
          if (!k.choices.empty() &&
              std::find(k.choices.begin(), k.choices.end(), *t) == k.choices.end())
            bad(where, k, "'" + *t + "'", "allowed: " + join(k.choices, ", "));
        } else if constexpr (std::is_same_v<T, std::vector<std::string>>) {
          std::vector<std::string> known = {"auto"};
          for (int i = 0; const char *a = PCOLL_Algorithm_name("allreduce", i); ++i)
            known.push_back(a);
          for (const auto &name : *t)
            if (std::find(known.begin(), known.end(), name) == known.end())
              bad(where, k, "'" + name + "'", "allowed: " + join(known, ", "));
        }
      },
      k.target);
}

}  // namespace

std::string resolve_deck(const std::string &deck) {
  return apps::resolve_deck(deck, PCOLL_CG_DECK_DIR);
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
  const std::vector<Key> table = keys(opt);
  for (const auto &[name, node] : deck) {
    const std::string section(name.str());
    if (section == "name" || section == "description") {
      if (!node.is_string())
        throw std::runtime_error(path + ": '" + section + "' must be a string");
      if (section == "name") opt.deck_name = *node.value<std::string>();
      continue;
    }
    std::vector<std::string> known;
    for (const auto &k : table)
      if (section == k.section) known.push_back(k.key);
    if (known.empty())
      throw std::runtime_error(path + ": unknown section [" + section +
                               "] (known: [grid], [solver], [run], name, description)");
    const auto *keys_here = node.as_table();
    if (keys_here == nullptr)
      throw std::runtime_error(path + ": '" + section + "' must be a table");
    for (const auto &[key, value] : *keys_here) {
      const std::string where = path + " [" + section + "]";
      const auto it = std::find_if(table.begin(), table.end(), [&](const Key &k) {
        return section == k.section && key.str() == k.key;
      });
      if (it == table.end())
        throw std::runtime_error(where + ": unknown key '" + std::string(key.str()) +
                                 "' (known: " + join(known, ", ") + ")");
      read_key(value, where, *it);
      check_key(*it, where);
    }
  }
}

void validate(const Options &opt) {
  Options copy = opt;
  for (const Key &k : keys(copy)) check_key(k, std::string("[") + k.section + "] / " + flag_of(k));
  const int local = (opt.local_nx > 0) + (opt.local_ny > 0) + (opt.local_nz > 0);
  if (local != 0 && local != 3)
    throw std::runtime_error(
        "local_nx, local_ny, local_nz (--local-n*): set all three (weak "
        "scaling) or none");
}

bool parse_options(int argc, char **argv, Options &opt, int &exit_code, bool speak) {
  exit_code = 0;
  opt.command_line = apps::command_line(argc, argv);
  // Pass 1: only --deck, so the deck's values become the defaults of pass 2.
  if (const std::string deck = apps::deck_argument(argc, argv); !deck.empty())
    load_deck(resolve_deck(deck), opt);
  CLI::App app{
      "pcoll CG case study: -Laplace(u) = f on the unit cube (7-point stencil, Dirichlet, "
      "manufactured u = X(x) X(y) X(z), X(t) = t (1 - t) e^t), 3-D block decomposition, hybrid MPI "
      "+ "
      "Kokkos/OpenMP, dot products through PCOLL_Allreduce",
      "cg"};
  std::string deck_unused;
  app.add_option("--deck", deck_unused,
                 "TOML deck: a path, or a name in " PCOLL_CG_DECK_DIR
                 " (quick, medium, weak); flags override it");
  std::vector<std::string> algos;
  for (const Key &k : keys(opt)) {
    const std::string help = std::string(k.help) + " [deck: [" + k.section + "] " + k.key + "]";
    std::visit(
        [&](auto *t) {
          using T = std::remove_pointer_t<decltype(t)>;
          if constexpr (std::is_same_v<T, std::vector<std::string>>)
            app.add_option(flag_of(k), algos, help);
          else if constexpr (std::is_same_v<T, bool>)
            app.add_option(flag_of(k), *t, help + " (true|false)")->capture_default_str();
          else
            app.add_option(flag_of(k), *t, help)->capture_default_str();
        },
        k.target);
  }
  app.add_option("--csv", opt.csv, "write one row per run (rank 0)");
  app.add_option("--output", opt.output,
                 "HDF5 results file: per run and iteration, every rank's phase times");
  app.add_option("--trace", opt.trace,
                 "pcoll trace (HDF5): every collective call and the cg phases of every iteration");
  app.add_flag("-q,--quiet", opt.quiet, "only the summary");
#ifdef PCOLL_SMPI
  app.add_option("--sim-stencil-per-point", opt.sim_stencil_per_point,
                 "simulation: seconds of stencil computation per local point and iteration, "
                 "measured natively (run with --cfg=smpi/simulate-computation:no)")
      ->required()
      ->check(CLI::PositiveNumber);
  app.add_option("--sim-vector-per-point", opt.sim_vector_per_point,
                 "simulation: seconds of vector work (updates, local dot products) per local "
                 "point and iteration, measured natively")
      ->required()
      ->check(CLI::PositiveNumber);
#endif
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError &e) {
    std::ostringstream quiet;
    exit_code = speak ? app.exit(e) : app.exit(e, quiet, quiet);
    return false;
  }
  if (!algos.empty()) opt.allreduce = split_list(algos);
  if (opt.deck.empty()) opt.deck_name = "custom";
  if (opt.reduction == "exact") opt.reduction = "reproducible";  // the old name
  validate(opt);
  return true;
}

}  // namespace pcoll::cg
