// The k-means kernels against plain serial definitions, bit for bit, on data whose sums are NOT
// exact (random doubles of mixed magnitude): registered at several OMP_NUM_THREADS, these tests
// show the kernels' results are bitwise independent of the thread count.
#include <pcoll/kernels/kmeans.hpp>

#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

using namespace pcoll::kernels;

namespace {

bool same_bits(double a, double b) {
  return std::memcmp(&a, &b, sizeof a) == 0;
}

// Mixed magnitudes make the floating-point sums order-dependent, so an order change would show.
Matrix random_matrix(int rows, int cols, unsigned seed) {
  Matrix m("m", rows, cols);
  std::mt19937_64 gen(seed);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  std::uniform_int_distribution<int> e(-20, 20);
  for (int i = 0; i < rows; ++i)
    for (int d = 0; d < cols; ++d) m(i, d) = std::ldexp(u(gen), e(gen));
  return m;
}

// The association the header documents, written independently.
double lane_distance(const double *a, const double *b, int dim) {
  double acc[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  const int full = dim / 8 * 8;
  for (int d = 0; d < full; ++d) acc[d % 8] += (a[d] - b[d]) * (a[d] - b[d]);
  for (int d = full; d < dim; ++d) acc[d - full] += (a[d] - b[d]) * (a[d] - b[d]);
  return ((acc[0] + acc[1]) + (acc[2] + acc[3])) + ((acc[4] + acc[5]) + (acc[6] + acc[7]));
}

}  // namespace

TEST_CASE("squared_distance evaluates the documented 8-lane association", "[kmeans][kernels]") {
  for (int dim : {1, 3, 7, 8, 9, 16, 31, 192, 256, 257}) {
    const Matrix m = random_matrix(2, dim, 7u + dim);
    const double got = squared_distance(&m(0, 0), &m(1, 0), dim);
    REQUIRE(same_bits(got, lane_distance(&m(0, 0), &m(1, 0), dim)));
    double plain = 0;
    for (int d = 0; d < dim; ++d) plain += (m(0, d) - m(1, d)) * (m(0, d) - m(1, d));
    REQUIRE(got == Approx(plain).epsilon(1e-12));
  }
}

TEST_CASE("assign: nearest centroid, ties to the smaller index, changed count exact",
          "[kmeans][kernels]") {
  const int n = 3000, dim = 13, k = 9;
  const Matrix x = random_matrix(n, dim, 1);
  Matrix c = random_matrix(k, dim, 2);
  // Centroid 6 duplicates centroid 2: every point nearer to them must go to 2, never 6.
  for (int d = 0; d < dim; ++d) c(6, d) = c(2, d);
  Labels labels("labels", n);
  Vector dist2("dist2", n);
  Kokkos::deep_copy(labels, -1);
  for (int i = 0; i < 5; ++i) labels(i) = 0;  // some labels already "right" or wrong
  std::int64_t expect_changed = 0;
  std::vector<int> expect(n);
  std::vector<double> expect_d(n);
  for (int i = 0; i < n; ++i) {
    int best = 0;
    double bd = lane_distance(&x(i, 0), &c(0, 0), dim);
    for (int j = 1; j < k; ++j) {
      const double dj = lane_distance(&x(i, 0), &c(j, 0), dim);
      if (dj < bd) bd = dj, best = j;
    }
    expect[i] = best;
    expect_d[i] = bd;
    if (labels(i) != best) ++expect_changed;
  }
  REQUIRE(kmeans_assign(x, c, labels, dist2) == expect_changed);
  int on_six = 0;
  for (int i = 0; i < n; ++i) {
    REQUIRE(labels(i) == expect[i]);
    REQUIRE(same_bits(dist2(i), expect_d[i]));
    on_six += labels(i) == 6;
  }
  REQUIRE(on_six == 0);
  REQUIRE(kmeans_assign(x, c, labels, dist2) == 0);  // nothing moves the second time
}

TEST_CASE("accumulate: counts exact, sums bitwise equal to the ascending serial sum",
          "[kmeans][kernels]") {
  // n spans several sort chunks (KMeansWorkspace::kChunk) and a partial last one; cluster 3 stays
  // empty; D spans several sum blocks and a partial one.
  for (int n : {0, 1, 1023, 1024, 5000}) {
    const int dim = 70, k = 7;
    const Matrix x = random_matrix(n, dim, 3u + n);
    Labels labels("labels", n);
    std::mt19937 gen(11);
    for (int i = 0; i < n; ++i) {
      int l = static_cast<int>(gen() % k);
      labels(i) = l == 3 ? 4 : l;
    }
    Counts counts("counts", k);
    Matrix sums("sums", k, dim);
    Kokkos::deep_copy(sums, 123.0);  // stale values must be overwritten, empty clusters too
    KMeansWorkspace ws(n, k);
    kmeans_accumulate(x, labels, counts, sums, ws);
    std::vector<int> ec(k, 0);
    std::vector<double> es(static_cast<std::size_t>(k) * dim, 0.0);
    for (int i = 0; i < n; ++i) {
      ++ec[labels(i)];
      for (int d = 0; d < dim; ++d) es[labels(i) * dim + d] += x(i, d);
    }
    for (int j = 0; j < k; ++j) {
      REQUIRE(counts(j) == ec[j]);
      for (int d = 0; d < dim; ++d) REQUIRE(same_bits(sums(j, d), es[j * dim + d]));
    }
    kmeans_accumulate(x, labels, counts, sums, ws);  // workspace reuse gives the same bits
    for (int j = 0; j < k; ++j)
      for (int d = 0; d < dim; ++d) REQUIRE(same_bits(sums(j, d), es[j * dim + d]));
  }
}

TEST_CASE("update: mean for non-empty clusters, empty clusters keep their centroid",
          "[kmeans][kernels]") {
  const int k = 4, dim = 5;
  Counts counts("counts", k);
  Matrix sums = random_matrix(k, dim, 5);
  Matrix c = random_matrix(k, dim, 6);
  Matrix before("before", k, dim);
  Kokkos::deep_copy(before, c);
  counts(0) = 3;
  counts(1) = 0;
  counts(2) = 1;
  counts(3) = 7;
  kmeans_update(counts, sums, c);
  for (int j = 0; j < k; ++j)
    for (int d = 0; d < dim; ++d)
      REQUIRE(same_bits(c(j, d), counts(j) ? sums(j, d) / counts(j) : before(j, d)));
}

TEST_CASE("sum_ordered: fixed chunked order", "[kmeans][kernels]") {
  for (int n : {0, 5, 1024, 4097}) {
    Vector v("v", n);
    const Matrix m = random_matrix(n, 1, 9u + n);
    for (int i = 0; i < n; ++i) v(i) = m(i, 0);
    double total = 0;
    for (int c = 0; c * KMeansWorkspace::kChunk < n; ++c) {
      double s = 0;
      for (int i = c * KMeansWorkspace::kChunk; i < std::min(n, (c + 1) * KMeansWorkspace::kChunk);
           ++i)
        s += v(i);
      total += s;
    }
    REQUIRE(same_bits(sum_ordered(v), total));
  }
}
