// What collprobe writes: the summary on stdout and the samples as CSV (rank 0 only).
#pragma once

#include <string>
#include <vector>

#include "bandwidth.hpp"
#include "ompi_tuned.hpp"
#include "probe.hpp"

namespace collprobe {

struct RunInfo {
  int ranks = 1;
  Coll coll = Coll::allreduce;
  std::string library;  // MPI_Get_library_version, first line
  const OmpiForced *ompi = nullptr;
  std::vector<std::string> entries;
  std::vector<Bandwidth> bandwidth;
  std::vector<std::string> order_check;  // order_check(): evidence that the forcing works
};

// Per size: calls per block, what served the pcoll entries where it was not the entry itself
// (what `auto` chose, fallbacks), and per entry the median and minimum time per call (us) with
// the median's ratio to pmpi's (pmpi/entry: < 1 is slower). scripts/lib/probe_report.py gives the
// same with bootstrap intervals.
void print_summary(const RunInfo &run, const ProbeResult &res);

// The CSV: '#' lines first (ranks, library, the ompi: note, the entries run, calls per size, what
// served each entry where it differs, the local bandwidths), then the header
// size,bytes,entry,block,seconds (size = count of doubles, seconds = per call) and one row per
// sample. Throws std::runtime_error naming the file if it cannot be written.
void write_csv(const std::string &path, const RunInfo &run, const ProbeResult &res);

}  // namespace collprobe
