// k-means (Lloyd) kernels on Kokkos' host execution space (OpenMP in pcoll's builds): assign each
// local point to its nearest centroid, accumulate per-cluster counts and coordinate sums, update
// centroids. No MPI here: the application reduces counts and sums across ranks in between.
//
// Determinism contract (every kernel): results are bitwise independent of the number of threads
// and of how Kokkos schedules the work.
//  - squared_distance evaluates one fixed association (8 lanes, see below), whatever the thread.
//  - assign: every point is handled by one thread alone; ties go to the smallest cluster index.
//  - accumulate: a stable counting sort of the points by label (fixed-size chunks, independent of
//    the thread count) followed by, for each (cluster, coordinate), one sequential sum over the
//    cluster's members in ascending point order. sums[k][d] is therefore exactly
//    (((0 + x[i0][d]) + x[i1][d]) + ...) with i0 < i1 < ..., the serial loop's value.
//  - sum_ordered: fixed-size chunks summed sequentially, then the chunk sums sequentially.
// Integer results (labels, counts, changed) are exact.
#pragma once

#include <Kokkos_Core.hpp>

#include <cstdint>

namespace pcoll::kernels {

using HostExec = Kokkos::DefaultHostExecutionSpace;
using HostMem = Kokkos::HostSpace;
// Row-major: one point (or centroid) is D contiguous doubles, so the distance loop is unit-stride.
using ConstMatrix = Kokkos::View<const double **, Kokkos::LayoutRight, HostMem>;
using Matrix = Kokkos::View<double **, Kokkos::LayoutRight, HostMem>;
using Labels = Kokkos::View<int *, HostMem>;
using ConstLabels = Kokkos::View<const int *, HostMem>;
using Counts = Kokkos::View<int *, HostMem>;
using Vector = Kokkos::View<double *, HostMem>;

// Number of independent partial sums in squared_distance. Fixed (not the machine's SIMD width) so
// that the value does not depend on the build: 8 doubles fill one AVX-512 register or two AVX2
// registers; narrower SIMD units still vectorise it as several registers.
inline constexpr int kDistanceLanes = 8;

// Squared Euclidean distance |a - b|^2 in one fixed association: lane l accumulates the
// coordinates d = l, l + 8, l + 16, ... in increasing order, then the lanes are added as the tree
// ((l0 + l1) + (l2 + l3)) + ((l4 + l5) + (l6 + l7)). This is the association of a vectorised loop
// written out, so the compiler can vectorise over D without -ffast-math and every thread, rank
// and run gets the same bits.
KOKKOS_INLINE_FUNCTION double squared_distance(const double *a, const double *b, int dim) {
  double acc[kDistanceLanes] = {0, 0, 0, 0, 0, 0, 0, 0};
  int d = 0;
  for (; d + kDistanceLanes <= dim; d += kDistanceLanes) {
    for (int l = 0; l < kDistanceLanes; ++l) {
      const double t = a[d + l] - b[d + l];
      acc[l] += t * t;
    }
  }
  for (int l = 0; d < dim; ++d, ++l) {
    const double t = a[d] - b[d];
    acc[l] += t * t;
  }
  return ((acc[0] + acc[1]) + (acc[2] + acc[3])) + ((acc[4] + acc[5]) + (acc[6] + acc[7]));
}

// Scratch memory of accumulate, sized once for (points, clusters) and reused every iteration.
class KMeansWorkspace {
 public:
  // Points per chunk of the counting sort. A constant, never derived from the thread count: the
  // chunking must not change the result, and with this scheme it does not anyway (the sort is
  // stable), but a constant also keeps the memory and work identical across runs.
  static constexpr int kChunk = 1024;

  KMeansWorkspace() = default;
  KMeansWorkspace(int points, int clusters);

  int points() const { return points_; }
  int clusters() const { return clusters_; }

 private:
  friend void kmeans_accumulate(ConstMatrix, ConstLabels, Counts, Matrix, KMeansWorkspace &);
  int points_ = 0, clusters_ = 0, chunks_ = 0;
  Kokkos::View<int **, Kokkos::LayoutRight, HostMem> chunk_pos_;  // [chunks][clusters]
  Kokkos::View<int *, HostMem> start_;                            // [clusters + 1]
  Kokkos::View<int *, HostMem> order_;                            // [points], grouped by label
};

// labels[i] = argmin_k squared_distance(x[i], c[k]) (ties: smallest k); dist2[i] = that minimum.
// Returns how many labels changed (a label < 0 on entry counts as changed).
std::int64_t kmeans_assign(ConstMatrix x, ConstMatrix centroids, Labels labels, Vector dist2);

// counts[k] = #{i : labels[i] == k}; sums[k][d] = sum of x[i][d] over those i, in ascending i.
// Every label must be in [0, clusters).
void kmeans_accumulate(ConstMatrix x, ConstLabels labels, Counts counts, Matrix sums,
                       KMeansWorkspace &ws);

// centroids[k] = sums[k] / counts[k] for counts[k] > 0; an empty cluster keeps its centroid.
// With identical (counts, sums, centroids) on every rank the result is identical on every rank.
void kmeans_update(Kokkos::View<const int *, HostMem> counts, ConstMatrix sums, Matrix centroids);

// Sum of v in a fixed order independent of the thread count (chunks of kChunk, then the chunks).
double sum_ordered(Kokkos::View<const double *, HostMem> v);

}  // namespace pcoll::kernels
