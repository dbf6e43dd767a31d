// collprobe's command line (CLI11). One struct, filled once, identical on every rank.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "collective.hpp"

namespace collprobe {

struct Options {
  Coll coll = Coll::allreduce;  // --coll: the collective timed
  // Message sizes in bytes (doubles, each a multiple of 8; what a size means per collective:
  // collective.hpp's Buffers).
  std::vector<std::size_t> sizes = {8, 64, 1024, 8192, 65536, 1048576};
  int blocks = 20;        // timed blocks per (entry, size)
  int calls = 2000;       // back-to-back calls per block, at most ...
  double block_ms = 5.0;  // ... and fewer where a block would last longer (0: always `calls`)
  int min_calls = 5;      // ... but never fewer than this
  int warmup = 100;       // untimed calls per (entry, size) before the blocks, at most ...
  unsigned seed = 42;     // seed of the per-block entry order
  std::vector<std::string> entries;  // empty: every entry the run can offer
  std::vector<std::string> forms = {"blocking"};  // blocking, nonblocking, persistent
  bool reproducible = false;  // --reproducible: each pcoll entry also as NAME+repro
  bool overlap = false;   // --overlap: osu_iallreduce's overlap of the nonblocking forms
  int overlap_tests = 0;  // --overlap-tests: test calls spread over the compute (OSU's -t)
  std::string overlap_compute = "spin";  // --overlap-compute: spin (OSU's) or sleep
  double overlap_factor = 1.0;           // --overlap-factor: the compute is this x t_pure
  std::string csv;                   // samples as CSV ('-' = stdout)
  int bw_reps = 200;                 // repetitions of the local bandwidth kernels
  bool quiet = false;
  bool list = false;              // --list: each collective and its algorithms, nothing timed
  bool binned_costs = false;      // --binned-costs: the reproducible mode's local kernels
  std::string calibrate;         // --calibrate FILE: measure the machine description instead
  std::string origin_machine;    // --origin-machine: [origin] machine (default: the host name)
  std::vector<int> torus;        // --torus: the nodes' torus dimensions (empty: no torus)
  std::string corrupt_for_test;  // hidden: corrupt this entry's result once (tests the check)
};

// Parses argv; on --help or a usage error prints (rank 0) and exits after MPI_Finalize, with 0
// for --help and 2 for an error naming the flag, the value and what is allowed.
Options parse_options(int argc, char **argv, int rank);

// "8", "4k", "1KiB", "1m" -> bytes; throws std::invalid_argument naming the text.
std::size_t parse_size(const std::string &text);
// 8 -> "8 B", 1024 -> "1 KiB", 1048576 -> "1 MiB" (the report's row labels).
std::string human_bytes(std::size_t bytes);

}  // namespace collprobe
