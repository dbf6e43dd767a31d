// Shared pieces of the MPI tests: collective-safe failure accounting and the algorithm variants.
#pragma once

#include <mpi.h>

#include <pcoll/pcoll.hpp>

#include <catch2/catch.hpp>
#include <string>
#include <utility>
#include <vector>

namespace pcoll_test {

// Inside loops of collective calls a failing REQUIRE on one rank would leave the others waiting
// in the next collective. Record failures instead and check them together at the end.
class Failures {
 public:
  void add(const std::string &what) {
    if (count_++ == 0) first_ = what;
  }
  // Collective over comm: all ranks learn whether any rank failed.
  void check_all(MPI_Comm comm) {
    int local = count_, total = 0, rank = 0;
    MPI_Allreduce(&local, &total, 1, MPI_INT, MPI_SUM, comm);
    MPI_Comm_rank(comm, &rank);
    INFO("rank " << rank << ": " << count_ << " local failures; first: " << first_);
    CHECK(local == 0);
    CHECK(total == 0);
    count_ = 0;
    first_.clear();
  }

 private:
  int count_ = 0;
  std::string first_;
};

struct Variant {
  std::string label;
  std::vector<std::pair<std::string, std::string>> set;  // parameter overrides
};

inline std::vector<Variant> allreduce_variants() {
  return {
      {"naive", {{"allreduce", "naive"}}},
      {"tree", {{"allreduce", "tree"}}},
      {"tree arity 2 flat 0",
       {{"allreduce", "tree"}, {"tree_arity", "2"}, {"tree_flat_below", "0"}}},
      {"tree arity 3 flat 0",
       {{"allreduce", "tree"}, {"tree_arity", "3"}, {"tree_flat_below", "0"}}},
      {"recursive_doubling", {{"allreduce", "recursive_doubling"}}},
      {"ring", {{"allreduce", "ring"}}},
      {"ring segment 64 B", {{"allreduce", "ring"}, {"ring_segment", "64"}}},
      {"rabenseifner", {{"allreduce", "rabenseifner"}}},
      {"chiara", {{"allreduce", "chiara"}}},
      {"chiara 2 ranks per node k_RS 3",
       {{"allreduce", "chiara"}, {"ranks_per_node", "2"}, {"chiara_krs", "3"}}},
      {"chiara k_AG 3", {{"allreduce", "chiara"}, {"chiara_kag", "3"}}},
      {"chiara_composed", {{"allreduce", "chiara_composed"}}},
      {"chiara_loglane", {{"allreduce", "chiara_loglane"}}},
      {"chiara_loglane halving", {{"allreduce", "chiara_loglane"}, {"chiara_lane", "halving"}}},
      {"chiara_loglane doubling 2 ranks per node k_RS 3",
       {{"allreduce", "chiara_loglane"},
        {"chiara_lane", "doubling"},
        {"ranks_per_node", "2"},
        {"chiara_krs", "3"}}},
      {"auto", {{"allreduce", "auto"}}},
  };
}

// Applies a list of parameter overrides to a communicator for the lifetime of the object.
class Overrides {
 public:
  Overrides(MPI_Comm comm, const std::vector<std::pair<std::string, std::string>> &set) {
    for (const auto &s : set)
      guards_.emplace_back(new pcoll::ScopedConfig(comm, s.first, s.second));
  }
  ~Overrides() {
    while (!guards_.empty()) {  // pop in reverse order of the pushes
      delete guards_.back();
      guards_.pop_back();
    }
  }
  Overrides(const Overrides &) = delete;
  Overrides &operator=(const Overrides &) = delete;

 private:
  std::vector<pcoll::ScopedConfig *> guards_;
};

}  // namespace pcoll_test
