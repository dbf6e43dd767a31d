// Data for the k-means case study: a seeded synthetic generator of Gaussian blobs that produces
// the same global data set whatever the number of ranks, and HDF5 input/output of point sets.
#pragma once

#include <mpi.h>

#include <pcoll/kernels/kmeans.hpp>

#include <cstdint>
#include <string>

namespace pcoll::kmeans {

// The synthetic data set: point i (global index) belongs to blob b(i) = hash(seed, i) mod blobs,
// and coordinate d is centre(b, d) + sigma * N(0, 1), where centre(b, d) is uniform in
// [-spread, spread] and the normal deviate comes from a counter-based hash of (seed, i, d)
// through Box-Muller. Nothing depends on which rank generates the point or in which order: every
// value is a pure function of (seed, i, d), so any partition of the points gives the same data.
//
// quantize_bits = q > 0 rounds every coordinate to a multiple of 2^-q and clamps it to
// [-kCoordinateBound, kCoordinateBound]. Then every coordinate is an integer times 2^-q of
// magnitude <= 2^(6+q), and any partial sum of at most 2^(47-q) such values is exactly
// representable in a double: every floating-point addition of coordinates is exact, so the
// centroid sums do not depend on the order of additions -- neither on the thread count, nor on P,
// nor on the allreduce algorithm. exact_sum_limit() is that bound on the number of points.
struct BlobSpec {
  std::uint64_t seed = 42;
  std::int64_t points = 0;  // global number of points
  int dim = 2;
  int blobs = 1;
  double spread = 10.0;
  double sigma = 1.0;
  int quantize_bits = 20;  // 0 = no quantisation
};

inline constexpr double kCoordinateBound = 64.0;  // 2^6

// Largest global point count for which sums of quantised coordinates are exact (0 if q == 0).
std::int64_t exact_sum_limit(int quantize_bits);

// Coordinate d of global point i.
double blob_coordinate(const BlobSpec &spec, std::int64_t i, int d);

// Rows [first, first + count) of the global data set into out (count x dim), in parallel
// (Kokkos, by point).
void generate_points(const BlobSpec &spec, std::int64_t first, kernels::Matrix out);

// The balanced block partition of n points over p ranks: rank r owns [first, first + count).
struct Slice {
  std::int64_t first = 0, count = 0;
};
Slice block_slice(std::int64_t n, int p, int r);

// Index of the global point that seeds centroid k (k < clusters): floor(k * n / clusters).
// Every rank can compute it, so initial centroids need no communication for synthetic data.
std::int64_t initial_index(std::int64_t n, int clusters, int k);

// HDF5 "file.h5:/path/to/dataset" -> {file, dataset}. The dataset defaults to /points.
struct H5Location {
  std::string file, dataset;
};
H5Location parse_h5_location(const std::string &spec);

bool have_hdf5();

// Shape {rows, cols} of a 2-D double dataset (every rank opens the file).
void h5_dataset_shape(MPI_Comm comm, const H5Location &loc, std::int64_t &rows, int &cols);
// Collective parallel read of rows [slice.first, slice.first + slice.count) into out.
void h5_read_rows(MPI_Comm comm, const H5Location &loc, Slice slice, kernels::Matrix out);
// Collective read of the listed rows (the same list on every rank) into out (rows.size() x cols).
void h5_read_selected_rows(MPI_Comm comm, const H5Location &loc, const std::int64_t *rows,
                           int nrows, kernels::Matrix out);
// Collective parallel write of each rank's rows [slice.first, ...) of an (n x dim) dataset.
void h5_write_rows(MPI_Comm comm, const H5Location &loc, std::int64_t n, Slice slice,
                   kernels::ConstMatrix rows);

}  // namespace pcoll::kmeans
