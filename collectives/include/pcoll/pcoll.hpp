// Thin C++ conveniences over pcoll.h: typed overloads and a scoped configuration override.
#pragma once

#include <pcoll/pcoll.h>

#include <complex>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

namespace pcoll {

template <class T>
MPI_Datatype mpi_type() {
  if constexpr (std::is_same_v<T, double>)
    return MPI_DOUBLE;
  else if constexpr (std::is_same_v<T, float>)
    return MPI_FLOAT;
  else if constexpr (std::is_same_v<T, int>)
    return MPI_INT;
  else if constexpr (std::is_same_v<T, unsigned>)
    return MPI_UNSIGNED;
  else if constexpr (std::is_same_v<T, long>)
    return MPI_LONG;
  else if constexpr (std::is_same_v<T, unsigned long>)
    return MPI_UNSIGNED_LONG;
  else if constexpr (std::is_same_v<T, long long>)
    return MPI_LONG_LONG;
  else if constexpr (std::is_same_v<T, unsigned long long>)
    return MPI_UNSIGNED_LONG_LONG;
  else if constexpr (std::is_same_v<T, short>)
    return MPI_SHORT;
  else if constexpr (std::is_same_v<T, unsigned short>)
    return MPI_UNSIGNED_SHORT;
  else if constexpr (std::is_same_v<T, signed char>)
    return MPI_SIGNED_CHAR;
  else if constexpr (std::is_same_v<T, unsigned char>)
    return MPI_UNSIGNED_CHAR;
  else if constexpr (std::is_same_v<T, bool>)
    return MPI_C_BOOL;
  else if constexpr (std::is_same_v<T, std::complex<double>>)
    return MPI_C_DOUBLE_COMPLEX;
  else
    static_assert(!sizeof(T), "pcoll::mpi_type: no predefined MPI datatype for T");
}

// allreduce(in, out, n, MPI_SUM, comm); in == nullptr means in place (MPI_IN_PLACE).
template <class T>
int allreduce(const T *in, T *out, int count, MPI_Op op, MPI_Comm comm) {
  return PCOLL_Allreduce(in ? static_cast<const void *>(in) : MPI_IN_PLACE, out, count,
                         mpi_type<T>(), op, comm);
}

template <class T>
int allreduce(std::vector<T> &inout, MPI_Op op, MPI_Comm comm) {
  return PCOLL_Allreduce(MPI_IN_PLACE, inout.data(), static_cast<int>(inout.size()), mpi_type<T>(),
                         op, comm);
}

// Overrides a parameter on one communicator for the lifetime of the object:
//   { pcoll::ScopedConfig use(comm, "allreduce", "ring"); ... }
class ScopedConfig {
 public:
  ScopedConfig(MPI_Comm comm, const std::string &name, const std::string &value) : comm_(comm) {
    if (PCOLL_Config_push(comm, name.c_str(), value.c_str()) != MPI_SUCCESS)
      throw std::invalid_argument("pcoll: cannot set " + name + "=" + value);
  }
  ~ScopedConfig() { PCOLL_Config_pop(comm_); }
  ScopedConfig(const ScopedConfig &) = delete;
  ScopedConfig &operator=(const ScopedConfig &) = delete;

 private:
  MPI_Comm comm_;
};

}  // namespace pcoll
