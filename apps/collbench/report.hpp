// The readable table (stdout) and the CSV.
#pragma once

#include <cstdio>
#include <string>
#include <vector>

#include "options.hpp"
#include "pingpong.hpp"
#include "sweep.hpp"

namespace collbench {

void print_header(std::FILE *f, const Options &o, int P, double alpha, double beta,
                  const char *model_source);
void print_table(std::FILE *f, const std::vector<Result> &results, int P);
void print_skew(std::FILE *f, const std::vector<Result> &results, int skew_rank, double skew_us);
void print_overhead(std::FILE *f, const Overhead &ov);
void print_pingpong(std::FILE *f, const PingPong &pp);
bool write_csv(const std::string &path, const std::vector<Result> &results, int P);

}  // namespace collbench
