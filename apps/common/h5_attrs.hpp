// Scalar attributes and double datasets for the case studies' HDF5 results files (kmeans, cg,
// fft3d write them with serial HDF5 from rank 0). Include only where HDF5 is available.
#pragma once

#include <hdf5.h>

#include <algorithm>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

namespace pcoll::apps {

inline void attr_string(hid_t obj, const char *name, const std::string &value) {
  const hid_t type = H5Tcopy(H5T_C_S1);
  H5Tset_size(type, std::max<std::size_t>(1, value.size()));
  const hid_t space = H5Screate(H5S_SCALAR);
  const hid_t a = H5Acreate2(obj, name, type, space, H5P_DEFAULT, H5P_DEFAULT);
  H5Awrite(a, type, value.empty() ? " " : value.c_str());
  H5Aclose(a);
  H5Sclose(space);
  H5Tclose(type);
}

inline void attr_double(hid_t obj, const char *name, double value) {
  const hid_t space = H5Screate(H5S_SCALAR);
  const hid_t a = H5Acreate2(obj, name, H5T_IEEE_F64LE, space, H5P_DEFAULT, H5P_DEFAULT);
  H5Awrite(a, H5T_NATIVE_DOUBLE, &value);
  H5Aclose(a);
  H5Sclose(space);
}

inline void attr_int(hid_t obj, const char *name, long long value) {
  const hid_t space = H5Screate(H5S_SCALAR);
  const hid_t a = H5Acreate2(obj, name, H5T_STD_I64LE, space, H5P_DEFAULT, H5P_DEFAULT);
  H5Awrite(a, H5T_NATIVE_LLONG, &value);
  H5Aclose(a);
  H5Sclose(space);
}

// Floating-point values as 64-bit floats, everything else as 64-bit integers.
template <class T>
void attr_num(hid_t obj, const char *name, T value) {
  if constexpr (std::is_floating_point_v<T>)
    attr_double(obj, name, static_cast<double>(value));
  else
    attr_int(obj, name, static_cast<long long>(value));
}

// A rank-dimensional dataset of doubles (dims[0..rank)), written whole.
inline void dataset_f64(hid_t group, const char *name, const std::vector<double> &data, int rank,
                        const hsize_t *dims) {
  const hid_t space = H5Screate_simple(rank, dims, nullptr);
  const hid_t d =
      H5Dcreate2(group, name, H5T_IEEE_F64LE, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  if (d < 0) throw std::runtime_error(std::string("HDF5: cannot create dataset ") + name);
  if (!data.empty()) H5Dwrite(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, data.data());
  H5Dclose(d);
  H5Sclose(space);
}

// A run's phase times of every iteration on every rank (GatheredPhases::per_iteration), as the
// dataset `phase_times[iteration][rank][phase]`, seconds; the file's `phases` attribute names the
// columns.
inline void dataset_phase_times(hid_t group, const std::vector<double> &per_iteration,
                                std::size_t iterations, int ranks, std::size_t phases,
                                const char *name = "phase_times") {
  const hsize_t dims[3] = {static_cast<hsize_t>(iterations), static_cast<hsize_t>(ranks),
                           static_cast<hsize_t>(phases)};
  dataset_f64(group, name, per_iteration, 3, dims);
}

}  // namespace pcoll::apps
