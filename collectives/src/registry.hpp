// The one table of algorithms (registry.cpp). Each algorithm file describes itself with an
// AlgorithmInfo: its name (the string users type, the trace log stores and plots show), what it
// is, where it comes from, its restrictions as data, the parameters it reads, its plan builder
// and its closed-form alpha-beta-gamma cost (used by `auto` and checked against the ledger).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "plan.hpp"

namespace pcoll {

enum class Collective : std::uint8_t { allreduce, reduce_scatter_block, allgather };
const char *collective_name(Collective c);
const std::vector<Collective> &all_collectives();

// Everything a plan builder may depend on. Builders are pure functions of this.
struct PlanRequest {
  Collective coll{};
  int rank = 0;
  int size = 1;
  std::size_t count = 0;
  std::size_t type_size = 1;  // bytes per element (for byte-sized parameters such as segments)
  int ranks_per_node = 0;     // consecutive ranks sharing a node (0: all on one node)
  // The algorithm's declared parameters, resolved to integers (kAuto for "auto").
  std::vector<std::pair<std::string, long long>> params;

  long long param(const char *name) const;  // throws std::logic_error if not declared
};

struct CostParams {
  double alpha = 0;  // s per message
  double beta = 0;   // s per byte sent
  double gamma = 0;  // s per byte reduced
};

struct Restrictions {
  // The algorithm combines contributions out of rank order: only commutative ops may use it.
  bool needs_commutative = false;
};

// Every field has a default, and entries are written as named assignments (C++17 has no
// designated initialisers):
//   static const AlgorithmInfo info = [] { AlgorithmInfo a; a.name = "ring"; ...; return a; }();
struct AlgorithmInfo {
  Collective coll{};
  const char *name = "";
  const char *description = "";
  const char *source = "";  // where the schedule comes from (papers cited by title)
  Restrictions restrictions;
  std::vector<const char *> params;              // names in param_table()
  Plan (*build)(const PlanRequest &) = nullptr;  // nullptr: the vendor MPI is called directly
  // Closed-form model time for P = req.size ranks and req.count * req.type_size bytes.
  double (*model)(const PlanRequest &, const CostParams &) = nullptr;
  // Why this request cannot run (a parameter that does not fit this P, ...), or empty.
  std::string (*check)(const PlanRequest &) = nullptr;
  // What the algorithm resolved for this request (batch size, radices ...) and any warning.
  std::string (*explain)(const PlanRequest &) = nullptr;
  // The model reproduces the plan's ledger exactly (tested); otherwise it is an estimate.
  bool model_exact = true;
  // `auto` may choose it (baselines kept for measurement only say false).
  bool auto_candidate = true;
  // A warning for shapes the algorithm handles poorly (said once per communicator), or empty.
  std::string (*warning)(const PlanRequest &) = nullptr;

  bool is_vendor() const { return build == nullptr; }
};

const std::vector<const AlgorithmInfo *> &all_algorithms();
std::vector<const AlgorithmInfo *> algorithms_of(Collective c);
const AlgorithmInfo *find_algorithm(Collective c, const std::string &name);

// The vendor MPI's own implementation of collective c, called through PMPI (not a plan).
const AlgorithmInfo &vendor_info(Collective c);

// The descriptions each algorithm file provides (listed in registry.cpp's one table).
const AlgorithmInfo &naive_allreduce_info();
const AlgorithmInfo &tree_allreduce_info();
const AlgorithmInfo &recursive_doubling_allreduce_info();
const AlgorithmInfo &ring_allreduce_info();
const AlgorithmInfo &rabenseifner_allreduce_info();
const AlgorithmInfo &chiara_allreduce_info();
const AlgorithmInfo &chiara_composed_allreduce_info();
const AlgorithmInfo &chiara_loglane_allreduce_info();
const AlgorithmInfo &ring_reduce_scatter_block_info();
const AlgorithmInfo &recursive_halving_reduce_scatter_block_info();
const AlgorithmInfo &chiara_reduce_scatter_block_info();
const AlgorithmInfo &ring_allgather_info();
const AlgorithmInfo &recursive_doubling_allgather_info();
const AlgorithmInfo &chiara_allgather_info();

}  // namespace pcoll
