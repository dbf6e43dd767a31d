// k-means kernels; see the header for the determinism contract and why each kernel keeps it.
#include <pcoll/kernels/kmeans.hpp>

#include <algorithm>
#include <stdexcept>
#include <string>

namespace pcoll::kernels {

namespace {
using Range = Kokkos::RangePolicy<HostExec>;

// Coordinates per work item of the sum kernel: a cluster's D coordinates are split in blocks so
// that K clusters give enough parallel work even for small K, and each block is one unit-stride
// vectorisable inner loop.
constexpr int kSumBlock = 64;

int chunks_for(int points) {
  return (points + KMeansWorkspace::kChunk - 1) / KMeansWorkspace::kChunk;
}
}  // namespace

KMeansWorkspace::KMeansWorkspace(int points, int clusters)
    : points_(points),
      clusters_(clusters),
      chunks_(chunks_for(points)),
      chunk_pos_("pcoll::kmeans::chunk_pos", chunks_for(points), clusters),
      start_("pcoll::kmeans::start", clusters + 1),
      order_("pcoll::kmeans::order", points) {
  if (points < 0 || clusters < 1)
    throw std::invalid_argument("KMeansWorkspace: need points >= 0 and clusters >= 1");
}

std::int64_t kmeans_assign(ConstMatrix x, ConstMatrix centroids, Labels labels, Vector dist2) {
  const int n = static_cast<int>(x.extent(0));
  const int dim = static_cast<int>(x.extent(1));
  const int k_count = static_cast<int>(centroids.extent(0));
  std::int64_t changed = 0;
  // One point per iteration: the reduction is over an integer, so its order does not matter.
  Kokkos::parallel_reduce(
      "pcoll::kmeans::assign", Range(0, n),
      KOKKOS_LAMBDA(const int i, std::int64_t &moved) {
        const double *xi = &x(i, 0);
        int best = 0;
        double best_d = squared_distance(xi, &centroids(0, 0), dim);
        for (int k = 1; k < k_count; ++k) {
          const double dk = squared_distance(xi, &centroids(k, 0), dim);
          if (dk < best_d) {  // strict: ties keep the smaller k
            best_d = dk;
            best = k;
          }
        }
        if (labels(i) != best) ++moved;
        labels(i) = best;
        dist2(i) = best_d;
      },
      changed);
  return changed;
}

void kmeans_accumulate(ConstMatrix x, ConstLabels labels, Counts counts, Matrix sums,
                       KMeansWorkspace &ws) {
  const int n = static_cast<int>(x.extent(0));
  const int dim = static_cast<int>(x.extent(1));
  const int k_count = static_cast<int>(sums.extent(0));
  if (ws.points_ != n || ws.clusters_ != k_count)
    throw std::invalid_argument("kmeans_accumulate: workspace sized for " +
                                std::to_string(ws.points_) + " points, " +
                                std::to_string(ws.clusters_) + " clusters");
  const int chunks = ws.chunks_;
  constexpr int chunk = KMeansWorkspace::kChunk;
  auto pos = ws.chunk_pos_;
  auto start = ws.start_;
  auto order = ws.order_;

  // 1. Histogram of labels per chunk (each chunk by one thread, no atomics).
  Kokkos::parallel_for(
      "pcoll::kmeans::histogram", Range(0, chunks), KOKKOS_LAMBDA(const int c) {
        for (int k = 0; k < k_count; ++k) pos(c, k) = 0;
        const int end = std::min(n, (c + 1) * chunk);
        for (int i = c * chunk; i < end; ++i) ++pos(c, labels(i));
      });
  // 2. Cluster sizes, and per chunk the number of earlier members of each cluster.
  Kokkos::parallel_for(
      "pcoll::kmeans::count", Range(0, k_count), KOKKOS_LAMBDA(const int k) {
        int running = 0;
        for (int c = 0; c < chunks; ++c) {
          const int here = pos(c, k);
          pos(c, k) = running;
          running += here;
        }
        counts(k) = running;
      });
  // 3. Where each cluster's members start in `order` (exclusive scan; integers, exact).
  Kokkos::parallel_scan(
      "pcoll::kmeans::offsets", Range(0, k_count),
      KOKKOS_LAMBDA(const int k, int &partial, const bool final) {
        if (final) start(k) = partial;
        partial += counts(k);
        if (final && k == k_count - 1) start(k_count) = partial;
      });
  // 4. Stable scatter: within a chunk in ascending i, and chunks are laid out in ascending order,
  //    so every cluster's members end up in ascending point order.
  Kokkos::parallel_for(
      "pcoll::kmeans::scatter", Range(0, chunks), KOKKOS_LAMBDA(const int c) {
        const int end = std::min(n, (c + 1) * chunk);
        for (int i = c * chunk; i < end; ++i) {
          const int k = labels(i);
          order(start(k) + pos(c, k)++) = i;
        }
      });
  // 5. Sums: one work item per (cluster, block of coordinates); members in ascending order.
  const int blocks = (dim + kSumBlock - 1) / kSumBlock;
  Kokkos::parallel_for(
      "pcoll::kmeans::sum", Range(0, k_count * blocks), KOKKOS_LAMBDA(const int w) {
        const int k = w / blocks;
        const int d0 = (w % blocks) * kSumBlock;
        const int d1 = std::min(dim, d0 + kSumBlock);
        double *s = &sums(k, 0);
        for (int d = d0; d < d1; ++d) s[d] = 0.0;
        for (int m = start(k); m < start(k + 1); ++m) {
          const double *xi = &x(order(m), 0);
          for (int d = d0; d < d1; ++d) s[d] += xi[d];
        }
      });
  Kokkos::fence();
}

void kmeans_update(Kokkos::View<const int *, HostMem> counts, ConstMatrix sums, Matrix centroids) {
  const int k_count = static_cast<int>(centroids.extent(0));
  const int dim = static_cast<int>(centroids.extent(1));
  Kokkos::parallel_for(
      "pcoll::kmeans::update", Range(0, k_count), KOKKOS_LAMBDA(const int k) {
        const int c = counts(k);
        if (c == 0) return;  // empty cluster: keep the old centroid (identical on all ranks)
        // A division per coordinate, not a multiplication by 1/c: correctly rounded, so the
        // centroid is the exact mean rounded once, whatever produced the (exact) sums.
        for (int d = 0; d < dim; ++d) centroids(k, d) = sums(k, d) / c;
      });
  Kokkos::fence();
}

double sum_ordered(Kokkos::View<const double *, HostMem> v) {
  const int n = static_cast<int>(v.extent(0));
  constexpr int chunk = KMeansWorkspace::kChunk;
  const int chunks = chunks_for(n);
  Kokkos::View<double *, HostMem> partial("pcoll::kmeans::partial", chunks);
  Kokkos::parallel_for(
      "pcoll::kmeans::sum_ordered", Range(0, chunks), KOKKOS_LAMBDA(const int c) {
        double s = 0.0;
        const int end = std::min(n, (c + 1) * chunk);
        for (int i = c * chunk; i < end; ++i) s += v(i);
        partial(c) = s;
      });
  Kokkos::fence();
  double total = 0.0;
  for (int c = 0; c < chunks; ++c) total += partial(c);
  return total;
}

}  // namespace pcoll::kernels
