// Writes the recorder's content as one HDF5 file, collectively over a communicator spanning
// MPI_COMM_WORLD, with parallel HDF5 (hdf5_writer.cpp), or reports that this build has no
// writer (no_writer.cpp, PCOLL_WITH_HDF5=OFF). The layout is docs/trace-format.md.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <string>

namespace pcoll::trace {

class Recorder;

bool writer_available();

// The width of the `collective` column (bytes, with the terminating NUL): it holds the longest
// name a record can carry, a persistent call's "<collective>_init" ("reduce_scatter_block_init")
// or a nonblocking "i<collective>" of the calls passed to the vendor ("ineighbor_allgatherv");
// tests/unit/trace_names_test.cpp checks every collective's three forms against it. A name that
// would not fit is never cut silently: the writer names it on stderr.
constexpr std::size_t kCollectiveField = 32;
// The width of the `params` column: every algorithm's parameters as "name=value,..." with each
// value at 13 characters (a size up to 2^40 bytes, in digits), checked by the same test; a
// longer text is named on stderr like a long collective name.
constexpr std::size_t kParamsField = 256;

struct WriteInfo {
  bool final = true;  // false: a snapshot (PCOLL_Trace_flush) of a run still going
};

// Writes `path` (through `path`.tmp, renamed on success). Collective over `comm`. Returns an
// empty string on success, else the reason (the same on every rank).
std::string write_file(const std::string &path, const Recorder &rec, MPI_Comm comm,
                       const WriteInfo &info);

}  // namespace pcoll::trace
