// What the fft3d driver reports (rank 0): a line per run, a summary per algorithm (time per
// transform and its split, all-to-all share, GFlop/s, speedups over vendor and FFTW-MPI), a CSV
// row per run for scripts/reproduce-fft.sh, and an HDF5 results file with every rank's split of
// every transform.
#pragma once

#include <array>
#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "transform.hpp"

namespace pcoll::fft3d {

constexpr const char *kFftwMpi = "fftw_mpi";  // the anchor's name in every table
constexpr int kSplit = 5;                     // wall, fft, pack, alltoall, unpack
// The columns of a transform's split, in order (apps::PhaseRecord names; kSplit of them).
inline const std::vector<std::string> &split_names() {
  static const std::vector<std::string> names = {"wall", "fft", "pack", "alltoall", "unpack"};
  return names;
}

struct RunSetup {
  std::string deck, decomp, field, planner, transform;
  int ranks = 1, threads = 1, p0 = 1, p1 = 1;
  std::array<int, 3> grid{0, 0, 0};
  std::vector<TransposeInfo> transposes;
  long long pairwise_threshold = 0;  // alltoall auto's dispatch (bytes per destination)
  int runs = 0, warmup = 0, iterations = 0;
  std::vector<int> overlap{1};  // pieces per transpose compared (set_overlap; 1: blocking)
  std::vector<std::string> algorithms;  // the alltoall names, then fftw_mpi when timed
  std::string command_line;
  // verification (outside the timed region)
  double spectrum_error = -1, roundtrip_error = -1;  // ours; -1: not checked
  double fftw_spectrum_error = -1, fftw_roundtrip_error = -1;
  double fftw_difference = -1;  // max |ours - FFTW-MPI| / max |FFTW-MPI|, forward; -1: not run
  double tolerance = 0;
  // Flops of one transform: 5 N log2 N (c2c), half that for r2c (FFTW's benchmark convention).
  double flops() const;
};

// One run of `iterations` forward + backward pairs. Each transform's time is the slowest rank's
// (the critical path); its split is that rank's. The record holds the means over the run's
// transforms; other = time - (fft + pack + alltoall + unpack) is timer and launch overhead.
struct RunRecord {
  std::string algorithm, served;  // algorithm: the entry's label ("pairwise:overlap=4")
  int overlap = 1;                // pieces per transpose
  int rep = 0;
  bool warmup = false;
  double time = 0, fft = 0, pack = 0, alltoall = 0, unpack = 0, other = 0;
  double fastest = 0, slowest = 0;  // over the run's transforms
  bool bits_ok = true;              // forward and backward bits equal the verified reference
  std::vector<double> split;        // [transform][rank][kSplit], kept for the HDF5 file
};

void print_header(std::ostream &os, const RunSetup &s);
// Returns false if an error exceeds the tolerance.
bool print_verification(std::ostream &os, const RunSetup &s);
void print_run(std::ostream &os, const RunRecord &r, bool first);
// Per algorithm over the timed runs. Returns false if a run's bits differ from the reference.
bool print_summary(std::ostream &os, const RunSetup &s, const std::vector<RunRecord> &runs);
void write_csv(const std::string &path, const RunSetup &s, const std::vector<RunRecord> &runs);
// Rank 0 only, serial HDF5; throws if built without HDF5.
void write_results_h5(const std::string &path, const RunSetup &s,
                      const std::vector<RunRecord> &runs);

}  // namespace pcoll::fft3d
