#include "registry.hpp"

#include <cctype>
#include <stdexcept>

namespace pcoll {

const char *collective_name(Collective c) {
  switch (c) {
    case Collective::allreduce:
      return "allreduce";
    case Collective::reduce_scatter_block:
      return "reduce_scatter_block";
    case Collective::allgather:
      return "allgather";
  }
  return "?";
}

const std::vector<Collective> &all_collectives() {
  static const std::vector<Collective> v = {Collective::allreduce, Collective::reduce_scatter_block,
                                            Collective::allgather};
  return v;
}

long long PlanRequest::param(const char *name) const {
  for (const auto &p : params)
    if (p.first == name) return p.second;
  throw std::logic_error(std::string("pcoll: plan builder read undeclared parameter ") + name);
}

// vendor: the MPI library's own implementation, called through PMPI. Whatever algorithm the
// vendor's selection logic picks (Open MPI: coll/tuned fixed decision rules; MPICH: CVAR-driven)
// is used unchanged. It is the reference every measurement is compared with and the fallback for
// calls our algorithms cannot serve. Restrictions: none. Cost: unknown (not a plan), so `auto`
// never picks it by model.
const AlgorithmInfo &vendor_info(Collective c) {
  struct Row {
    std::string description;
    AlgorithmInfo info;
  };
  static const std::vector<Row> rows = [] {
    std::vector<Row> v;
    v.reserve(all_collectives().size());  // no reallocation: info.description points into v
    for (Collective k : all_collectives()) {
      std::string mpi = std::string("MPI_") + collective_name(k);
      mpi[4] = static_cast<char>(std::toupper(static_cast<unsigned char>(mpi[4])));
      Row r;
      r.description = "the MPI library's own " + mpi + " (via PMPI)";
      r.info.coll = k;
      r.info.name = "vendor";
      r.info.source = "the MPI implementation";
      v.push_back(std::move(r));
      v.back().info.description = v.back().description.c_str();
    }
    return v;
  }();
  for (const Row &r : rows)
    if (r.info.coll == c) return r.info;
  throw std::logic_error("pcoll: vendor_info of an unknown collective");
}

// The one table. Order is the order pcoll-info, benchmarks and plots list them in.
const std::vector<const AlgorithmInfo *> &all_algorithms() {
  static const std::vector<const AlgorithmInfo *> table = {
      // allreduce
      &vendor_info(Collective::allreduce),
      &naive_allreduce_info(),
      &tree_allreduce_info(),
      &recursive_doubling_allreduce_info(),
      &ring_allreduce_info(),
      &rabenseifner_allreduce_info(),
      &chiara_allreduce_info(),
      &chiara_composed_allreduce_info(),
      &chiara_loglane_allreduce_info(),
      // reduce_scatter_block
      &vendor_info(Collective::reduce_scatter_block),
      &ring_reduce_scatter_block_info(),
      &recursive_halving_reduce_scatter_block_info(),
      &chiara_reduce_scatter_block_info(),
      // allgather
      &vendor_info(Collective::allgather),
      &ring_allgather_info(),
      &recursive_doubling_allgather_info(),
      &chiara_allgather_info(),
  };
  return table;
}

std::vector<const AlgorithmInfo *> algorithms_of(Collective c) {
  std::vector<const AlgorithmInfo *> v;
  for (const auto *a : all_algorithms())
    if (a->coll == c) v.push_back(a);
  return v;
}

const AlgorithmInfo *find_algorithm(Collective c, const std::string &name) {
  for (const auto *a : all_algorithms())
    if (a->coll == c && name == a->name) return a;
  return nullptr;
}

}  // namespace pcoll
