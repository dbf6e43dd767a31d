// collbench's part of the HDF5 log: the group /collbench (results, per-call samples, skew,
// ping-pong, overhead) added by rank 0 to the trace file pcoll wrote for the run. Layout:
// docs/trace-format.md.
#pragma once

#include <string>
#include <vector>

#include "options.hpp"
#include "pingpong.hpp"
#include "sweep.hpp"

namespace collbench {

struct LogContent {
  const Options *opts = nullptr;
  int P = 1;
  double alpha = 0, beta = 0;
  std::string model_source;
  const std::vector<Result> *results = nullptr;
  const PingPong *pingpong = nullptr;
  const Overhead *overhead = nullptr;  // may be null
};

bool log_available();
// Creates `path` if it does not exist, else adds to it. Returns an error message or "".
std::string append_log(const std::string &path, const LogContent &c);

}  // namespace collbench
