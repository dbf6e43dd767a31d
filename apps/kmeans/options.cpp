// Deck (TOML) + command line (CLI11) for the k-means driver. The deck gives the defaults, any flag
// given on the command line wins.
#include "../smpi_compat.hpp"  // first: see there

#include "options.hpp"

#include "../common/deck.hpp"

#include <toml++/toml.h>
#include <CLI/CLI.hpp>

#include <filesystem>
#include <iostream>
#include <set>
#include <sstream>
#include <stdexcept>

#ifndef PCOLL_KMEANS_DECK_DIR
#define PCOLL_KMEANS_DECK_DIR "inputs/kmeans"
#endif

namespace pcoll::kmeans {

namespace {

template <class T>
void take(const toml::table &section, const std::string &where, const char *key, T &out) {
  const toml::node *node = section.get(key);
  if (node == nullptr) return;
  if constexpr (std::is_same_v<T, bool>) {
    if (auto v = node->value<bool>()) {
      out = *v;
      return;
    }
  } else if constexpr (std::is_same_v<T, std::string>) {
    if (auto v = node->value<std::string>()) {
      out = *v;
      return;
    }
  } else if constexpr (std::is_floating_point_v<T>) {
    if (auto v = node->value<double>()) {
      out = *v;
      return;
    }
  } else {
    if (auto v = node->value<std::int64_t>(); v && *v >= 0) {
      out = static_cast<T>(*v);
      return;
    }
  }
  throw std::runtime_error(where + ": bad value for '" + key + "'");
}

// A misspelt key must not be silently ignored: every key of the sections we read is known.
void only_known(const toml::table &section, const std::string &where,
                const std::set<std::string> &known) {
  for (const auto &[key, node] : section) {
    (void)node;
    if (known.count(std::string(key.str())) == 0) {
      std::string list;
      for (const auto &k : known) list += (list.empty() ? "" : ", ") + k;
      throw std::runtime_error(where + ": unknown key '" + std::string(key.str()) +
                               "' (known: " + list + ")");
    }
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
  take(deck, path, "name", opt.deck_name);
  if (const auto *p = deck["problem"].as_table()) {
    const std::string where = path + " [problem]";
    only_known(
        *p, where,
        {"dim", "clusters", "points_per_rank", "points", "iterations", "stop_when_converged"});
    take(*p, where, "dim", opt.dim);
    take(*p, where, "clusters", opt.clusters);
    take(*p, where, "points_per_rank", opt.points_per_rank);
    take(*p, where, "points", opt.points);
    take(*p, where, "iterations", opt.iterations);
    take(*p, where, "stop_when_converged", opt.stop_when_converged);
  }
  if (const auto *d = deck["data"].as_table()) {
    const std::string where = path + " [data]";
    only_known(*d, where,
               {"seed", "blobs", "spread", "sigma", "quantize_bits", "input", "quantize_input"});
    take(*d, where, "seed", opt.seed);
    take(*d, where, "blobs", opt.blobs);
    take(*d, where, "spread", opt.spread);
    take(*d, where, "sigma", opt.sigma);
    take(*d, where, "quantize_bits", opt.quantize_bits);
    take(*d, where, "input", opt.input);
    take(*d, where, "quantize_input", opt.quantize_input);
  }
  if (const auto *r = deck["run"].as_table()) {
    const std::string where = path + " [run]";
    only_known(*r, where, {"runs", "warmup", "allreduce", "reduction"});
    take(*r, where, "runs", opt.runs);
    take(*r, where, "reduction", opt.reduction);
    take(*r, where, "warmup", opt.warmup);
    if (const auto *algos = r->get_as<toml::array>("allreduce")) {
      opt.allreduce.clear();
      for (const auto &a : *algos)
        if (auto s = a.value<std::string>()) opt.allreduce.push_back(*s);
    } else {
      std::string one;
      take(*r, where, "allreduce", one);
      if (!one.empty()) opt.allreduce = {one};
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

}  // namespace

std::string resolve_deck(const std::string &deck) {
  return apps::resolve_deck(deck, PCOLL_KMEANS_DECK_DIR);
}

bool parse_options(int argc, char **argv, Options &opt, int &exit_code, bool speak) {
  exit_code = 0;
  opt.command_line = apps::command_line(argc, argv);

  // Pass 1: only --deck, so the deck's values become the defaults of pass 2.
  if (const std::string deck = apps::deck_argument(argc, argv); !deck.empty())
    load_deck(resolve_deck(deck), opt);

  CLI::App app{
      "pcoll k-means case study (CHiArA paper, Section VI): Lloyd iterations with three "
      "PCOLL_Allreduce calls each (K ints, K*D doubles, 1 int); hybrid MPI + Kokkos/OpenMP "
      "(OMP_NUM_THREADS threads per rank)",
      "kmeans"};
  std::string deck_unused;
  app.add_option("--deck", deck_unused,
                 "TOML deck: a path, or a name in " PCOLL_KMEANS_DECK_DIR
                 " (quick, polaris, fugaku); flags override it");
  app.add_option("-D,--dim", opt.dim, "dimensions D")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  app.add_option("-K,--clusters", opt.clusters, "clusters K")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  app.add_option("--points-per-rank", opt.points_per_rank,
                 "points per rank (global points = this * P) when --points is 0")
      ->capture_default_str();
  app.add_option("--points", opt.points,
                 "global number of points, the same whatever P (0: use "
                 "--points-per-rank)")
      ->capture_default_str();
  app.add_option("--iterations", opt.iterations, "maximum Lloyd iterations per run")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  app.add_flag("--stop-when-converged,!--fixed-iterations", opt.stop_when_converged,
               "stop when no point changes cluster (default from the deck); --fixed-iterations "
               "always runs --iterations (controlled communication volume)");
  app.add_option("--seed", opt.seed, "seed of the synthetic data set")->capture_default_str();
  app.add_option("--blobs", opt.blobs, "Gaussian blobs in the synthetic data (0: K)")
      ->capture_default_str();
  app.add_option("--spread", opt.spread, "blob centres uniform in [-spread, spread]^D")
      ->capture_default_str();
  app.add_option("--sigma", opt.sigma, "standard deviation of each blob")->capture_default_str();
  app.add_option("--quantize-bits", opt.quantize_bits,
                 "round synthetic coordinates to multiples of 2^-q (0: off); makes every sum "
                 "exact, so results are bitwise independent of P, threads and algorithm")
      ->capture_default_str()
      ->check(CLI::Range(0, 46));
  app.add_option("--input", opt.input, "read points from HDF5 'file.h5:/dataset' (points x D)");
  app.add_option("--quantize-input", opt.quantize_input,
                 "round --input coordinates to multiples of 2^-q (0: as stored)")
      ->capture_default_str()
      ->check(CLI::Range(0, 46));
  app.add_option("--write-points", opt.write_points,
                 "write the global point set to HDF5 'file.h5:/dataset' and continue");
  std::vector<std::string> algos;
  app.add_option("--allreduce", algos,
                 "allreduce algorithm(s), comma-separated, compared in one launch in rotating "
                 "order (vendor, chiara, ring, ...; default: PCOLL_ALLREDUCE or auto)");
  app.add_option("--reduction", opt.reduction,
                 "sum: the centroid sums are K*D doubles per allreduce (exact on grid data, "
                 "else their last bits depend on the algorithm and P); reproducible: each rank "
                 "deposits its points into binned sums (PCOLL_Binned, 56 B each) allreduced with "
                 "the binned op: the same clustering bit for bit for every algorithm, rank count "
                 "and thread count")
      ->check(CLI::IsMember({"sum", "reproducible"}))
      ->capture_default_str();
  app.add_option("--runs", opt.runs, "timed runs per algorithm")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  app.add_option("--warmup", opt.warmup, "untimed warm-up runs per algorithm")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  app.add_option("--csv", opt.csv, "write one row per run (rank 0)");
  app.add_option("--output", opt.output,
                 "HDF5 results file: per run and iteration, every rank's phase times");
  app.add_option("--trace", opt.trace,
                 "pcoll trace (HDF5, docs/trace-format.md): every collective call and, per "
                 "iteration, the kmeans phases of every rank (same as PCOLL_TRACE=FILE)");
  app.add_option("--centroids-out", opt.centroids_out,
                 "write the final centroids of the last run (hexfloat text, rank 0)");
  app.add_flag("-q,--quiet", opt.quiet, "only the summary");
#ifdef PCOLL_SMPI
  app.add_option("--sim-compute-per-iteration", opt.sim_compute_per_iteration,
                 "simulation: seconds of computation each rank is charged per iteration, "
                 "measured natively for the same per-rank problem (scripts/simulate.sh does); "
                 "run with --cfg=smpi/simulate-computation:no so the host's own time is not "
                 "counted as well")
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
  if (opt.blobs == 0) opt.blobs = opt.clusters;
  if (opt.reduction != "sum" && opt.reduction != "reproducible")  // from a deck
    throw std::runtime_error("reduction = '" + opt.reduction + "': allowed sum, reproducible");
  return true;
}

}  // namespace pcoll::kmeans
