// Synthetic Gaussian blobs by global index, and HDF5 point-set input/output (parallel HDF5).
#include "dataset.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <vector>

#ifdef PCOLL_KMEANS_HAVE_HDF5
#include <hdf5.h>
#endif

namespace pcoll::kmeans {

namespace {

// SplitMix64's finaliser: a bijective 64-bit mixer with full avalanche; chained to hash tuples.
std::uint64_t mix64(std::uint64_t z) {
  z += 0x9e3779b97f4a7c15ULL;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

std::uint64_t hash3(std::uint64_t a, std::uint64_t b, std::uint64_t c) {
  return mix64(mix64(mix64(a) ^ b) ^ c);
}

// Uniform in (0, 1]: 53 random bits, never 0 (Box-Muller takes its logarithm).
double unit_open0(std::uint64_t h) {
  return (static_cast<double>(h >> 11) + 1.0) * 0x1.0p-53;
}

// Stream tags keep the hashes of different quantities apart.
constexpr std::uint64_t kBlobTag = 0x626c6f62ULL;    // "blob"
constexpr std::uint64_t kCentreTag = 0x63656e74ULL;  // "cent"
constexpr std::uint64_t kNoiseTag = 0x6e6f6973ULL;   // "nois"

}  // namespace

std::int64_t exact_sum_limit(int quantize_bits) {
  if (quantize_bits <= 0) return 0;
  // |x| <= 2^6 and x = m * 2^-q  =>  |m| <= 2^(6+q); a sum of M values has |sum m| <= M 2^(6+q),
  // exactly representable while M 2^(6+q) <= 2^53.
  if (quantize_bits >= 47) return 1;
  return std::int64_t{1} << (47 - quantize_bits);
}

double blob_coordinate(const BlobSpec &spec, std::int64_t i, int d) {
  const auto ui = static_cast<std::uint64_t>(i);
  const auto ud = static_cast<std::uint64_t>(d);
  const std::uint64_t blob =
      hash3(spec.seed, kBlobTag, ui) % static_cast<std::uint64_t>(spec.blobs);
  const double u_centre = unit_open0(hash3(spec.seed ^ kCentreTag, blob, ud));
  const double centre = spec.spread * (2.0 * u_centre - 1.0);
  const std::uint64_t h = hash3(spec.seed ^ kNoiseTag, ui, ud);
  const double u1 = unit_open0(h);
  const double u2 = unit_open0(mix64(h));
  const double normal = std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * M_PI * u2);
  double v = centre + spec.sigma * normal;
  if (spec.quantize_bits > 0) {
    v = std::ldexp(std::nearbyint(std::ldexp(v, spec.quantize_bits)), -spec.quantize_bits);
    v = std::fmin(kCoordinateBound, std::fmax(-kCoordinateBound, v));
  }
  return v;
}

void generate_points(const BlobSpec &spec, std::int64_t first, kernels::Matrix out) {
  const int n = static_cast<int>(out.extent(0));
  const int dim = static_cast<int>(out.extent(1));
  if (dim != spec.dim) throw std::invalid_argument("generate_points: dimension mismatch");
  Kokkos::parallel_for(
      "pcoll::kmeans::generate", Kokkos::RangePolicy<kernels::HostExec>(0, n),
      KOKKOS_LAMBDA(const int i) {
        for (int d = 0; d < dim; ++d) out(i, d) = blob_coordinate(spec, first + i, d);
      });
  Kokkos::fence();
}

Slice block_slice(std::int64_t n, int p, int r) {
  const std::int64_t lo = n * r / p, hi = n * (r + 1) / p;
  return {lo, hi - lo};
}

std::int64_t initial_index(std::int64_t n, int clusters, int k) {
  return static_cast<std::int64_t>(k) * n / clusters;
}

H5Location parse_h5_location(const std::string &spec) {
  const auto colon = spec.rfind(':');
  if (colon == std::string::npos || colon + 1 >= spec.size() || spec[colon + 1] != '/')
    return {spec, "/points"};
  return {spec.substr(0, colon), spec.substr(colon + 1)};
}

#ifdef PCOLL_KMEANS_HAVE_HDF5

bool have_hdf5() {
  return true;
}

namespace {

// Owns an HDF5 identifier; closes it with the matching H5*close.
class H5Id {
 public:
  H5Id(hid_t id, herr_t (*close)(hid_t), const std::string &what) : id_(id), close_(close) {
    if (id_ < 0) throw std::runtime_error("HDF5: cannot " + what);
  }
  ~H5Id() {
    if (id_ >= 0) close_(id_);
  }
  H5Id(const H5Id &) = delete;
  H5Id &operator=(const H5Id &) = delete;
  operator hid_t() const { return id_; }

 private:
  hid_t id_;
  herr_t (*close_)(hid_t);
};

void check(herr_t rc, const std::string &what) {
  if (rc < 0) throw std::runtime_error("HDF5: cannot " + what);
}

hid_t mpio_fapl(MPI_Comm comm) {
  const hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
  check(H5Pset_fapl_mpio(fapl, comm, MPI_INFO_NULL), "set the MPI-IO driver");
  return fapl;
}

hid_t collective_dxpl() {
  const hid_t dxpl = H5Pcreate(H5P_DATASET_XFER);
  check(H5Pset_dxpl_mpio(dxpl, H5FD_MPIO_COLLECTIVE), "request collective I/O");
  return dxpl;
}

}  // namespace

void h5_dataset_shape(MPI_Comm comm, const H5Location &loc, std::int64_t &rows, int &cols) {
  H5Id fapl(mpio_fapl(comm), H5Pclose, "create a file access list");
  H5Id file(H5Fopen(loc.file.c_str(), H5F_ACC_RDONLY, fapl), H5Fclose, "open " + loc.file);
  H5Id dset(H5Dopen2(file, loc.dataset.c_str(), H5P_DEFAULT), H5Dclose,
            "open dataset " + loc.dataset + " in " + loc.file);
  H5Id space(H5Dget_space(dset), H5Sclose, "get the dataspace of " + loc.dataset);
  if (H5Sget_simple_extent_ndims(space) != 2)
    throw std::runtime_error("HDF5: " + loc.file + ":" + loc.dataset +
                             " must be a 2-D dataset (points x dimensions)");
  hsize_t dims[2] = {0, 0};
  H5Sget_simple_extent_dims(space, dims, nullptr);
  rows = static_cast<std::int64_t>(dims[0]);
  cols = static_cast<int>(dims[1]);
}

namespace {
void read_selection(MPI_Comm comm, const H5Location &loc, kernels::Matrix out,
                    const std::vector<std::pair<hsize_t, hsize_t>> &row_runs) {
  H5Id fapl(mpio_fapl(comm), H5Pclose, "create a file access list");
  H5Id file(H5Fopen(loc.file.c_str(), H5F_ACC_RDONLY, fapl), H5Fclose, "open " + loc.file);
  H5Id dset(H5Dopen2(file, loc.dataset.c_str(), H5P_DEFAULT), H5Dclose,
            "open dataset " + loc.dataset);
  H5Id fspace(H5Dget_space(dset), H5Sclose, "get the file dataspace");
  check(H5Sselect_none(fspace), "clear the selection");
  for (const auto &[first, count] : row_runs) {
    const hsize_t start[2] = {first, 0}, extent[2] = {count, out.extent(1)};
    check(H5Sselect_hyperslab(fspace, H5S_SELECT_OR, start, nullptr, extent, nullptr),
          "select rows");
  }
  // A rank with no rows still takes part in the collective read, with empty selections.
  const hsize_t mdims[2] = {std::max<hsize_t>(1, out.extent(0)), out.extent(1)};
  H5Id mspace(H5Screate_simple(2, mdims, nullptr), H5Sclose, "create the memory dataspace");
  if (out.extent(0) == 0) check(H5Sselect_none(mspace), "select nothing");
  H5Id dxpl(collective_dxpl(), H5Pclose, "create a transfer list");
  check(H5Dread(dset, H5T_NATIVE_DOUBLE, mspace, fspace, dxpl, out.data()),
        "read " + loc.file + ":" + loc.dataset);
}
}  // namespace

void h5_read_rows(MPI_Comm comm, const H5Location &loc, Slice slice, kernels::Matrix out) {
  std::vector<std::pair<hsize_t, hsize_t>> runs;
  if (slice.count > 0)
    runs.emplace_back(static_cast<hsize_t>(slice.first), static_cast<hsize_t>(slice.count));
  read_selection(comm, loc, out, runs);
}

void h5_read_selected_rows(MPI_Comm comm, const H5Location &loc, const std::int64_t *rows,
                           int nrows, kernels::Matrix out) {
  // HDF5 reads a selection in file order, so read the distinct rows sorted, then place them.
  std::vector<std::int64_t> sorted(rows, rows + nrows);
  std::sort(sorted.begin(), sorted.end());
  sorted.erase(std::unique(sorted.begin(), sorted.end()), sorted.end());
  std::vector<std::pair<hsize_t, hsize_t>> runs;
  for (std::int64_t r : sorted) runs.emplace_back(static_cast<hsize_t>(r), 1);
  kernels::Matrix distinct("pcoll::kmeans::distinct_rows", sorted.size(), out.extent(1));
  read_selection(comm, loc, distinct, runs);
  for (int k = 0; k < nrows; ++k) {
    const auto at = std::lower_bound(sorted.begin(), sorted.end(), rows[k]) - sorted.begin();
    for (std::size_t d = 0; d < out.extent(1); ++d) out(k, d) = distinct(at, d);
  }
}

void h5_write_rows(MPI_Comm comm, const H5Location &loc, std::int64_t n, Slice slice,
                   kernels::ConstMatrix rows) {
  H5Id fapl(mpio_fapl(comm), H5Pclose, "create a file access list");
  H5Id file(H5Fcreate(loc.file.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, fapl), H5Fclose,
            "create " + loc.file);
  const hsize_t dims[2] = {static_cast<hsize_t>(n), rows.extent(1)};
  H5Id fspace(H5Screate_simple(2, dims, nullptr), H5Sclose, "create the file dataspace");
  H5Id lcpl(H5Pcreate(H5P_LINK_CREATE), H5Pclose, "create a link list");
  check(H5Pset_create_intermediate_group(lcpl, 1), "allow intermediate groups");
  H5Id dset(
      H5Dcreate2(file, loc.dataset.c_str(), H5T_IEEE_F64LE, fspace, lcpl, H5P_DEFAULT, H5P_DEFAULT),
      H5Dclose, "create dataset " + loc.dataset);
  const hsize_t start[2] = {static_cast<hsize_t>(slice.first), 0};
  const hsize_t extent[2] = {static_cast<hsize_t>(slice.count), rows.extent(1)};
  if (slice.count > 0)
    check(H5Sselect_hyperslab(fspace, H5S_SELECT_SET, start, nullptr, extent, nullptr),
          "select rows");
  else
    H5Sselect_none(fspace);
  const hsize_t mdims[2] = {std::max<hsize_t>(1, extent[0]), extent[1]};
  H5Id mspace(H5Screate_simple(2, mdims, nullptr), H5Sclose, "create the memory dataspace");
  if (slice.count == 0) check(H5Sselect_none(mspace), "select nothing");
  H5Id dxpl(collective_dxpl(), H5Pclose, "create a transfer list");
  check(H5Dwrite(dset, H5T_NATIVE_DOUBLE, mspace, fspace, dxpl, rows.data()),
        "write " + loc.file + ":" + loc.dataset);
}

#else  // no HDF5

bool have_hdf5() {
  return false;
}

namespace {
[[noreturn]] void no_hdf5() {
  throw std::runtime_error(
      "kmeans was built without HDF5 (PCOLL_WITH_HDF5=OFF or no parallel HDF5)");
}
}  // namespace

void h5_dataset_shape(MPI_Comm, const H5Location &, std::int64_t &, int &) {
  no_hdf5();
}
void h5_read_rows(MPI_Comm, const H5Location &, Slice, kernels::Matrix) {
  no_hdf5();
}
void h5_read_selected_rows(MPI_Comm, const H5Location &, const std::int64_t *, int,
                           kernels::Matrix) {
  no_hdf5();
}
void h5_write_rows(MPI_Comm, const H5Location &, std::int64_t, Slice, kernels::ConstMatrix) {
  no_hdf5();
}

#endif

}  // namespace pcoll::kmeans
