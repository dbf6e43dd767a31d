// The algorithms the tests run, and the one table of their extra parameter variants.
//
// Which algorithms exist is not listed here or in any test: the tests enumerate the registry
// (PCOLL_Algorithm_name, pcoll-info's order), so a new algorithm is verified symbolically
// (tests/unit/plan_matrix_test.cpp) and under MPI (tests/mpi) with its default parameters without
// editing a test. Parameter values that change a schedule are declared once, in extra_variants().
#pragma once

#include <pcoll/pcoll.h>

#include <string>
#include <utility>
#include <vector>

namespace pcoll_test {

using Set = std::vector<std::pair<std::string, std::string>>;

// Where a variant runs: symbolic = the plan matrix (P = 1..64, cheap), mpi = under mpiexec at
// every test rank count (expensive: keep few).
enum Where : unsigned { symbolic = 1, mpi = 2, both = 3 };

struct ExtraVariant {
  const char *coll;
  const char *algo;
  Set set;  // parameter overrides besides the algorithm itself
  unsigned where;
};

inline const std::vector<ExtraVariant> &extra_variants() {
  static const std::vector<ExtraVariant> table = [] {
    std::vector<ExtraVariant> v;
    for (const char *arity : {"2", "3", "4", "7"})
      for (const char *flat : {"0", "16"}) {
        if (std::string(arity) == "2" && std::string(flat) == "16") continue;  // the defaults
        v.push_back({"allreduce",
                     "tree",
                     {{"tree_arity", arity}, {"tree_flat_below", flat}},
                     std::string(flat) == "0" && std::string(arity) < "4" ? both : symbolic});
      }
    // shm: pieces of 3 doubles (half a 6-double slot: many pieces, a last one shorter), the block-by-block path at
    // every count and the every-rank-reduces path at every count.
    v.push_back({"allreduce", "shm", {{"shm_chunk", "48"}}, both});
    v.push_back({"allreduce", "shm", {{"shm_small", "0"}}, both});
    v.push_back({"allreduce", "shm", {{"shm_small", "1g"}, {"shm_chunk", "40"}}, symbolic});
    // The other shared-memory collectives in pieces: bcast through its ring of regions (pieces
    // of 3 doubles: many laps round the ring), reduce on both paths, allgather (pieces of 3) and
    // alltoall with their slot halves in turn (a 1 KiB slot: 128 doubles, 4 per block and piece
    // at P = 16).
    v.push_back({"bcast", "shm", {{"shm_chunk", "24"}}, both});
    v.push_back({"reduce", "shm", {{"shm_chunk", "48"}}, both});
    v.push_back({"reduce", "shm", {{"shm_reduce_small", "1g"}, {"shm_chunk", "40"}}, both});
    v.push_back({"allgather", "shm", {{"shm_chunk", "48"}}, both});
    v.push_back({"alltoall", "shm", {{"shm_chunk", "1k"}}, both});
    for (const char *seg : {"8", "24", "1000", "64k"})
      v.push_back({"allreduce", "ring", {{"ring_segment", seg}}, symbolic});
    v.push_back({"allreduce", "ring", {{"ring_segment", "64"}}, mpi});
    v.push_back({"allreduce", "chiara", {{"ranks_per_node", "2"}, {"chiara_krs", "3"}}, mpi});
    v.push_back({"allreduce", "chiara", {{"chiara_kag", "3"}}, mpi});
    for (const char *lane : {"flat", "doubling", "halving", "swing", "bine"})
      v.push_back({"allreduce",
                   "chiara_loglane",
                   {{"chiara_lane", lane}},
                   std::string(lane) == "flat" || std::string(lane) == "doubling" ? symbolic : both});
    v.push_back({"allreduce",
                 "chiara_loglane",
                 {{"chiara_lane", "doubling"}, {"ranks_per_node", "2"}, {"chiara_krs", "3"}},
                 mpi});
    // Swing per torus dimension: 2 (sides 2^ceil, 2^floor: square or 2:1), 3 (more dimensions
    // than steps at P' < 8: sides of one rank).
    v.push_back({"allreduce", "swing", {{"swing_dims", "2"}}, both});
    v.push_back({"allreduce", "swing", {{"swing_dims", "3"}}, symbolic});
    // The multiport version: 2 parts both ways round the ring, 4 on the 2-D torus (fewer where
    // the count is short), 6 on the 3-D one.
    for (const char *dims : {"1", "2", "3"})
      v.push_back({"allreduce", "swing", {{"swing_dims", dims}, {"swing_multiport", "1"}},
                   std::string(dims) == "2" ? both : symbolic});
    // recexch and recexch_rsag radices: 2 (recursive doubling's steps with a fold to the power of two below),
    // 3 (odd; mixed radices 3 and 2: P = 6, 12 unfolded, 7 folded), 5, 64 (>= every P of the
    // plan matrix: one step of P-1 messages); and MPICH's power-of-k group with its larger fold.
    for (const char *algo : {"recexch", "recexch_rsag"}) {
      for (const char *k : {"2", "3", "5", "64"})
        v.push_back({"allreduce", algo, {{"recexch_radix", k}},
                     std::string(k) == "3" ? both : symbolic});
      for (const char *k : {"3", "4"})
        v.push_back({"allreduce", algo, {{"recexch_radix", k}, {"recexch_factors", "power"}},
                     symbolic});
    }
    // alltoall: Bruck radices (64 >= every P of the plan matrix: one step of direct messages;
    // the MPI test adds radix = P itself), the HPX tree below its flat threshold and arities.
    for (const char *k : {"3", "5", "64"})
      v.push_back(
          {"alltoall", "bruck", {{"bruck_radix", k}}, std::string(k) == "3" ? both : symbolic});
    for (const char *arity : {"2", "3", "4", "64"})
      v.push_back({"alltoall",
                   "routed_tree",
                   {{"tree_arity", arity}, {"tree_flat_below", "0"}},
                   std::string(arity) == "2" || std::string(arity) == "3" ? both : symbolic});
    // linear: one peer per round (pairwise's (r+k) order), 3 (uneven last round), all at once.
    for (const char *batch : {"1", "3", "0"})
      v.push_back({"alltoall", "linear", {{"alltoall_batch", batch}},
                   std::string(batch) == "3" ? both : symbolic});
    // node_aware: one rank per node (the direct exchange), partial last nodes (3 ranks per
    // node), groups of unequal size (3 = 2 + 1, 5 = 2 + 2 + 1), several leaders on one node.
    for (const auto &[rpn, leaders] : std::vector<std::pair<const char *, const char *>>{
             {"1", "1"}, {"3", "1"}, {"3", "2"}, {"5", "3"}})
      v.push_back({"alltoall",
                   "node_aware",
                   {{"ranks_per_node", rpn}, {"alltoall_leaders", leaders}},
                   std::string(rpn) == "3" ? both : symbolic});
    v.push_back({"alltoall", "node_aware", {{"alltoall_leaders", "4"}}, symbolic});
    // bcast and reduce trees: below the flat threshold (default 16) they are one flat group.
    for (const char *coll : {"bcast", "reduce"}) {
      v.push_back({coll, "tree", {{"tree_arity", "2"}, {"tree_flat_below", "0"}}, symbolic});
      v.push_back({coll, "tree", {{"tree_arity", "3"}, {"tree_flat_below", "0"}}, both});
    }
    return v;
  }();
  return table;
}

struct AlgoVariant {
  std::string algo;
  Set set;  // parameter overrides besides the algorithm
  std::string label;
  // The overrides including the algorithm choice itself (PCOLL_<COLL> = algo).
  Set overrides(const std::string &coll) const {
    Set s = {{coll, algo}};
    s.insert(s.end(), set.begin(), set.end());
    return s;
  }
};

// Every registered algorithm of `coll` with its defaults (vendor only when asked), then the extra
// variants for `where`, in registry order.
inline std::vector<AlgoVariant> variants_of(const std::string &coll, Where where,
                                            bool with_vendor = false) {
  std::vector<AlgoVariant> v;
  for (int i = 0; const char *a = PCOLL_Algorithm_name(coll.c_str(), i); ++i) {
    if (!with_vendor && std::string(a) == "vendor") continue;
    v.push_back({a, {}, a});
    for (const ExtraVariant &e : extra_variants()) {
      if (coll != e.coll || std::string(a) != e.algo || (e.where & where) == 0) continue;
      std::string label = a;
      for (const auto &s : e.set) label += " " + s.first + "=" + s.second;
      v.push_back({a, e.set, label});
    }
  }
  return v;
}

}  // namespace pcoll_test
