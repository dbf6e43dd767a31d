// The ledger and alpha-beta(-gamma) prediction of the plan pcoll would run for one
// (collective, algorithm, P, count, type size), from pcoll's internal headers: the same plan
// builder the library runs, all ranks' plans matched into a schedule, then the ledger.
#pragma once

#include <cstddef>
#include <string>

#include "options.hpp"

namespace collbench {

struct Prediction {
  bool valid = false;  // false: vendor (no plan) or the plan could not be built
  double rounds = 0, messages = 0;
  std::size_t max_bytes_sent = 0;
  double model_seconds = 0;
  std::string note;
};

struct ModelParams {
  double alpha = -1, beta = -1;  // < 0: from the configuration (PCOLL_MODEL_*)
};

// The alpha, beta and gamma a prediction uses (after applying overrides).
void model_values(const ModelParams &mp, double &alpha, double &beta, double &gamma);

// `v` is an --algos entry: the algorithm and the parameter settings its calls run with.
Prediction predict(const std::string &coll, const AlgoVariant &v, int P, std::size_t count,
                   std::size_t type_size, const ModelParams &mp);

}  // namespace collbench
