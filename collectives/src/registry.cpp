#include "registry.hpp"

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

// The one table. Order is the order pcoll-info, benchmarks and plots list them in.
const std::vector<const AlgorithmInfo *> &all_algorithms() {
  static const std::vector<const AlgorithmInfo *> table = {
      // allreduce
      &vendor_allreduce_info(),
      &naive_allreduce_info(),
      &tree_allreduce_info(),
      &recursive_doubling_allreduce_info(),
      &ring_allreduce_info(),
      &rabenseifner_allreduce_info(),
      &chiara_allreduce_info(),
      &chiara_composed_allreduce_info(),
      &chiara_loglane_allreduce_info(),
      // reduce_scatter_block
      &vendor_reduce_scatter_block_info(),
      &ring_reduce_scatter_block_info(),
      &recursive_halving_reduce_scatter_block_info(),
      &chiara_reduce_scatter_block_info(),
      // allgather
      &vendor_allgather_info(),
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
