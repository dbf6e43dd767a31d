// Built when PCOLL_WITH_HDF5=OFF: tracing cannot be written, and says so.
#include "trace/writer.hpp"

namespace pcoll::trace {

bool writer_available() {
  return false;
}

std::string write_file(const std::string &, const Recorder &, MPI_Comm, const WriteInfo &) {
  return "this pcoll was built with PCOLL_WITH_HDF5=OFF: no trace writer";
}

}  // namespace pcoll::trace
