// Writes the recorder's content as one HDF5 file, collectively over a communicator spanning
// MPI_COMM_WORLD, with parallel HDF5 (hdf5_writer.cpp), or reports that this build has no
// writer (no_writer.cpp, PCOLL_WITH_HDF5=OFF). The layout is docs/trace-format.md.
#pragma once

#include <mpi.h>

#include <string>

namespace pcoll::trace {

class Recorder;

bool writer_available();

struct WriteInfo {
  bool final = true;  // false: a snapshot (PCOLL_Trace_flush) of a run still going
};

// Writes `path` (through `path`.tmp, renamed on success). Collective over `comm`. Returns an
// empty string on success, else the reason (the same on every rank).
std::string write_file(const std::string &path, const Recorder &rec, MPI_Comm comm,
                       const WriteInfo &info);

}  // namespace pcoll::trace
