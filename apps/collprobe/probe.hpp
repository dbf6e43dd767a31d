// The probe proper: entries, blocks of back-to-back calls, verification.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <string>
#include <vector>

#include "collective.hpp"
#include "ompi_tuned.hpp"
#include "options.hpp"

namespace collprobe {

// How an entry's calls are made. The timed loop is one tight loop per kind.
enum class Kind {
  pmpi,    // PMPI_<coll> on the probe's communicator (the vendor's default decisions)
  pcoll,   // PCOLL_<coll> with the collective pushed to `algorithm` for the block
  forced,  // PMPI_Allreduce on a duplicate whose coll/tuned is forced to one algorithm
};

// Which form of the call an entry makes (--forms):
enum class Form {
  blocking,     // PCOLL_Allreduce / PMPI_Allreduce
  nonblocking,  // PCOLL_Iallreduce + PCOLL_Wait / PMPI_Iallreduce + PMPI_Wait ("/nb")
  persistent,   // PCOLL_Allreduce_init once per block, then PCOLL_Start + PCOLL_Wait per call
                // ("/persistent"; pcoll entries only)
};

struct Entry {
  std::string label;  // CSV and report name: "pmpi", "vendor", "ring", "ompi:ring", "ring/nb", ...
  Kind kind = Kind::pmpi;
  std::string algorithm;  // pcoll algorithm (Kind::pcoll)
  MPI_Comm comm = MPI_COMM_NULL;
  Form form = Form::blocking;
  bool reproducible = false;  // runs with PCOLL_REPRODUCIBLE=on (label NAME+repro)
};

// pmpi, then every pcoll algorithm of `coll` as the library enumerates them (vendor and auto
// included), then (allreduce only) the forced Open MPI communicators; `only` (--entries) restricts the list
// (pmpi always stays: it is the reference). Each entry is made in every form of `forms` (the
// blocking one keeps its plain name; pmpi also as pmpi/nb; the forced communicators only
// blocking, since Open MPI's nonblocking calls do not go through coll/tuned); `reproducible`
// adds every pcoll entry once more under PCOLL_REPRODUCIBLE=on, as NAME+repro. Throws
// std::invalid_argument naming an unknown or unavailable entry and listing the available ones,
// or --reproducible for a collective that does not reduce.
std::vector<Entry> make_entries(Coll coll, const std::vector<std::string> &only,
                                const OmpiForced &forced, MPI_Comm base,
                                const std::vector<std::string> &forms = {"blocking"},
                                bool reproducible = false);

struct Sample {
  std::size_t bytes = 0;
  std::string entry;
  int block = 0;
  double seconds = 0;  // per call: block time / calls, maximum over ranks
};

struct SizeInfo {
  std::size_t bytes = 0;
  int calls = 0;  // calls per block at this size
  // (entry, algorithm that served it) where they differ: what `auto` chose, fallbacks.
  std::vector<std::pair<std::string, std::string>> served;
};

// --overlap: one row per nonblocking or persistent entry and size (osu_iallreduce's overlap).
struct OverlapRow {
  std::size_t bytes = 0;
  std::string entry;
  double pure = 0, compute = 0, total = 0;  // seconds per call
  double percent = 0;                       // 100 (1 - (total - compute) / pure), in [0, 100]
};

struct ProbeResult {
  std::vector<OverlapRow> overlap;
  std::vector<Sample> samples;  // rank 0 only
  std::vector<SizeInfo> sizes;
  std::string wrong;  // empty, or the message of the first wrong result (the run must fail)
};

// Collective over base. Prints progress on rank 0's stderr unless o.quiet.
ProbeResult run_probe(const Options &o, const std::vector<Entry> &entries, MPI_Comm base);

}  // namespace collprobe
