// The distributed k-means (apps/kmeans) under mpiexec, registered at P = 1..4 with one OpenMP
// thread and at P = 2, 3 with two.
//
// What is bitwise and what is within a tolerance:
//  - Quantised synthetic data (coordinates on a 2^-20 grid, the decks' default): every sum is
//    exact, so labels, counts, centroids and the iteration count are BITWISE equal to a plain
//    serial k-means on the same global data (written independently below), whatever P, the
//    thread count or the allreduce algorithm. The reference knows nothing of P or threads, so
//    passing at every registered (P, threads) proves the results independent of both.
//    The inertia is a rounded sum whose association depends on P: within 1e-12 relative.
//  - Unquantised data: per-rank sums are bitwise fixed (kernels' contract), but the allreduce
//    adds the P partial sums in an algorithm-dependent order. Each centroid sum of two algorithms
//    then differs by at most 2(P-1) u sum_i |x_id| (u = 2^-53), so centroids differ by at most
//    about 2(P-1) u max|x| + 2 u |c|: we check 4 P u max|x|. Labels and iteration counts must
//    still agree (the blobs are far apart; a flip needs a near-tie within that bound).
//  - The serial reference computes the distance as a plain sequential sum over d, the kernels
//    in 8 lanes: distances differ in the last bits, which changes a label only at a near-tie,
//    and none occurs in these data sets (the test would show it).
#include <mpi.h>
#include <pcoll/pcoll.h>
#include <unistd.h>

#include <pcoll/pcoll.hpp>

#include <catch2/catch.hpp>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "dataset.hpp"
#include "options.hpp"
#include "solver.hpp"

using namespace pcoll::kmeans;

namespace {

struct World {
  MPI_Comm comm;
  int rank = 0, size = 1;
  World() {
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
  }
  ~World() { MPI_Comm_free(&comm); }
};

bool same_bits(double a, double b) {
  return std::memcmp(&a, &b, sizeof a) == 0;
}

// ---- the serial reference: plain loops over the whole global data set ----
struct Reference {
  std::vector<double> centroids;
  std::vector<int> labels, counts;
  int iterations = 0;
  bool converged = false;
  double inertia = 0;
};

// binned: the centroid sums as PCOLL_Binned sums (the solver's reduction = reproducible).
Reference serial_kmeans(const std::vector<double> &x, std::int64_t n, int dim, int k,
                        int max_iterations, bool stop_when_converged, bool binned = false) {
  Reference r;
  r.centroids.resize(static_cast<std::size_t>(k) * dim);
  for (int j = 0; j < k; ++j) {
    const std::int64_t s = j * n / k;
    for (int d = 0; d < dim; ++d) r.centroids[j * dim + d] = x[s * dim + d];
  }
  r.labels.assign(n, -1);
  auto assign = [&](std::vector<double> *dist) {
    int changed = 0;
    for (std::int64_t i = 0; i < n; ++i) {
      int best = -1;
      double bd = 0;
      for (int j = 0; j < k; ++j) {
        double s = 0;
        for (int d = 0; d < dim; ++d) {
          const double t = x[i * dim + d] - r.centroids[j * dim + d];
          s += t * t;
        }
        if (best < 0 || s < bd) bd = s, best = j;
      }
      changed += r.labels[i] != best;
      r.labels[i] = best;
      if (dist) (*dist)[i] = bd;
    }
    return changed;
  };
  for (int it = 0; it < max_iterations; ++it) {
    const int changed = assign(nullptr);
    r.counts.assign(k, 0);
    std::vector<double> sums(static_cast<std::size_t>(k) * dim, 0.0);
    std::vector<PCOLL_Binned> bins(sums.size());
    for (auto &b : bins) PCOLL_Binned_clear(&b);
    for (std::int64_t i = 0; i < n; ++i) {
      ++r.counts[r.labels[i]];
      for (int d = 0; d < dim; ++d) {
        sums[r.labels[i] * dim + d] += x[i * dim + d];
        PCOLL_Binned_add(&bins[r.labels[i] * dim + d], x[i * dim + d]);
      }
    }
    if (binned)
      for (std::size_t j = 0; j < sums.size(); ++j) sums[j] = PCOLL_Binned_value(&bins[j]);
    for (int j = 0; j < k; ++j)
      if (r.counts[j] > 0)
        for (int d = 0; d < dim; ++d) r.centroids[j * dim + d] = sums[j * dim + d] / r.counts[j];
    r.iterations = it + 1;
    if (changed == 0) {
      r.converged = true;
      if (stop_when_converged) break;
    }
  }
  std::vector<double> dist(n);
  assign(&dist);
  for (double v : dist) r.inertia += v;
  return r;
}

Options small_options(std::int64_t points, int dim, int k, int quantize_bits) {
  Options o;
  o.points = points;
  o.dim = dim;
  o.clusters = k;
  o.blobs = k;
  o.seed = 7;
  o.spread = 10.0;
  o.sigma = 1.0;
  o.quantize_bits = quantize_bits;
  o.iterations = 25;
  o.stop_when_converged = true;
  return o;
}

std::vector<double> global_points(const Options &o) {
  BlobSpec spec;
  spec.seed = o.seed;
  spec.points = o.points;
  spec.dim = o.dim;
  spec.blobs = o.blobs;
  spec.spread = o.spread;
  spec.sigma = o.sigma;
  spec.quantize_bits = o.quantize_bits;
  std::vector<double> x(static_cast<std::size_t>(o.points) * o.dim);
  for (std::int64_t i = 0; i < o.points; ++i)
    for (int d = 0; d < o.dim; ++d) x[i * o.dim + d] = blob_coordinate(spec, i, d);
  return x;
}

// Everyone's labels, in global order.
std::vector<int> all_labels(const World &w, const LloydSolver &s, std::int64_t n) {
  std::vector<int> counts(w.size), displs(w.size);
  for (int p = 0; p < w.size; ++p) {
    const Slice sl = block_slice(n, w.size, p);
    counts[p] = static_cast<int>(sl.count);
    displs[p] = static_cast<int>(sl.first);
  }
  std::vector<int> out(n);
  auto local = s.labels();
  MPI_Allgatherv(local.data(), static_cast<int>(local.extent(0)), MPI_INT, out.data(),
                 counts.data(), displs.data(), MPI_INT, w.comm);
  return out;
}

struct Outcome {
  RunResult run;
  std::vector<double> centroids;
  std::vector<int> labels, counts;
};

Outcome solve(const World &w, const Problem &pb, const Options &o, bool reproducible = false) {
  LloydSolver s(w.comm, pb, reproducible);
  Outcome out;
  out.run = s.run(o.iterations, o.stop_when_converged);
  auto c = s.centroids();
  out.centroids.assign(c.data(), c.data() + c.size());
  out.labels = all_labels(w, s, pb.global_points);
  auto k = s.counts();
  out.counts.assign(k.data(), k.data() + k.size());
  return out;
}

// Every (parameter, value) override to try; the ones this build does not know (chiara before it
// lands, say) are skipped. All algorithm names pcoll may have, plus parameter variants that
// change the schedule.
std::vector<std::vector<std::pair<std::string, std::string>>> algorithm_variants() {
  return {{{"allreduce", "vendor"}},
          {{"allreduce", "naive"}},
          {{"allreduce", "tree"}},
          {{"allreduce", "tree"}, {"tree_flat_below", "0"}, {"tree_arity", "3"}},
          {{"allreduce", "recursive_doubling"}},
          {{"allreduce", "ring"}},
          {{"allreduce", "ring"}, {"ring_segment", "1024"}},
          {{"allreduce", "rabenseifner"}},
          {{"allreduce", "chiara"}},
          {{"allreduce", "chiara_composed"}},
          {{"allreduce", "auto"}}};
}

std::string describe(const std::vector<std::pair<std::string, std::string>> &v) {
  std::string s;
  for (const auto &[k, val] : v) s += (s.empty() ? "" : " ") + k + "=" + val;
  return s;
}

// Runs fn under the overrides; returns false (and pushes nothing) if one is unknown here.
template <class Fn>
bool with_overrides(const World &w, const std::vector<std::pair<std::string, std::string>> &v,
                    Fn fn) {
  int pushed = 0;
  for (const auto &[name, value] : v) {
    if (PCOLL_Config_push(w.comm, name.c_str(), value.c_str()) != MPI_SUCCESS) break;
    ++pushed;
  }
  const bool ok = pushed == static_cast<int>(v.size());
  if (ok) fn();
  for (int i = 0; i < pushed; ++i) PCOLL_Config_pop(w.comm);
  return ok;
}

void require_matches_reference(const Outcome &got, const Reference &ref, bool bitwise, double tol) {
  REQUIRE(got.run.iterations == ref.iterations);
  REQUIRE(got.run.converged == ref.converged);
  REQUIRE(got.labels == ref.labels);
  REQUIRE(got.counts == ref.counts);
  REQUIRE(got.centroids.size() == ref.centroids.size());
  for (std::size_t i = 0; i < ref.centroids.size(); ++i) {
    if (bitwise)
      REQUIRE(same_bits(got.centroids[i], ref.centroids[i]));
    else
      REQUIRE(std::fabs(got.centroids[i] - ref.centroids[i]) <= tol);
  }
  REQUIRE(got.run.inertia == Approx(ref.inertia).epsilon(1e-12).margin(1e-300));
}

}  // namespace

TEST_CASE("k-means equals a serial reference bitwise on exact-sum data, any P and threads",
          "[kmeans]") {
  World w;
  struct Case {
    std::int64_t n;
    int dim, k;
  };
  // 600 points: ordinary; 37 points in 19-D: D not a multiple of the 8 lanes; 10 points for 16
  // clusters: duplicated seeds, so empty clusters (which keep their centroid); 3 points: ranks
  // without points at P = 4.
  for (const Case c : {Case{600, 12, 9}, Case{37, 19, 5}, Case{10, 4, 16}, Case{3, 2, 5}}) {
    CAPTURE(c.n, c.dim, c.k, w.size);
    const Options o = small_options(c.n, c.dim, c.k, 20);
    const Problem pb = make_problem(w.comm, o);
    REQUIRE(pb.exact_sums);
    const Reference ref = serial_kmeans(global_points(o), c.n, c.dim, c.k, o.iterations, true);
    const Outcome got = solve(w, pb, o);
    require_matches_reference(got, ref, true, 0.0);
    if (c.n < c.k) {
      int empty = 0;
      for (int j = 0; j < c.k; ++j) empty += ref.counts[j] == 0;
      REQUIRE(empty > 0);  // the case exercises empty clusters
    }
  }
}

TEST_CASE("every allreduce algorithm gives bit-identical clusterings on exact-sum data",
          "[kmeans]") {
  World w;
  const Options o = small_options(500, 24, 11, 20);
  const Problem pb = make_problem(w.comm, o);
  const Reference ref =
      serial_kmeans(global_points(o), o.points, o.dim, o.clusters, o.iterations, true);
  int tried = 0;
  for (const auto &variant : algorithm_variants()) {
    CAPTURE(describe(variant), w.size);
    const bool known = with_overrides(w, variant, [&] {
      const Outcome got = solve(w, pb, o);
      require_matches_reference(got, ref, true, 0.0);
      // every rank holds the same centroids (pcoll's bit-identical results on all ranks)
      std::vector<double> root = got.centroids;
      MPI_Bcast(root.data(), static_cast<int>(root.size()), MPI_DOUBLE, 0, w.comm);
      int same = std::memcmp(root.data(), got.centroids.data(), root.size() * sizeof(double)) == 0;
      MPI_Allreduce(MPI_IN_PLACE, &same, 1, MPI_INT, MPI_LAND, w.comm);
      REQUIRE(same);
    });
    tried += known;
  }
  REQUIRE(tried >= 6);  // vendor, naive, tree (x2), recursive_doubling, ring (x2), ...
}

TEST_CASE("unquantised data: algorithms agree on labels, centroids within 4 P u max|x|",
          "[kmeans]") {
  World w;
  const Options o = small_options(400, 16, 6, 0);
  const Problem pb = make_problem(w.comm, o);
  REQUIRE_FALSE(pb.exact_sums);
  const std::vector<double> x = global_points(o);
  double max_abs = 0;
  for (double v : x) max_abs = std::max(max_abs, std::fabs(v));
  const double u = std::ldexp(1.0, -53);
  const double tol = 4.0 * w.size * u * max_abs;

  Outcome base;
  with_overrides(w, {{"allreduce", "vendor"}}, [&] { base = solve(w, pb, o); });
  for (const auto &variant : algorithm_variants()) {
    CAPTURE(describe(variant), w.size);
    with_overrides(w, variant, [&] {
      const Outcome got = solve(w, pb, o);
      REQUIRE(got.run.iterations == base.run.iterations);
      REQUIRE(got.labels == base.labels);
      REQUIRE(got.counts == base.counts);
      for (std::size_t i = 0; i < base.centroids.size(); ++i)
        REQUIRE(std::fabs(got.centroids[i] - base.centroids[i]) <= tol);
      REQUIRE(got.run.inertia == Approx(base.run.inertia).epsilon(1e-12));
    });
  }
  // Against the serial reference (global ascending sums): the bound grows with the number of
  // points per cluster instead of P, n u max|x|.
  const Reference ref = serial_kmeans(x, o.points, o.dim, o.clusters, o.iterations, true);
  require_matches_reference(base, ref, false, static_cast<double>(o.points) * u * max_abs);
}

TEST_CASE("unquantised data, reduction = reproducible: the serial binned result bitwise, every "
          "algorithm, any P",
          "[kmeans]") {
  // The sums are rounded (no grid), so plain sums differ in the last bits between algorithms
  // and rank counts; binned sums depend on the set of points only. Matching one serial
  // reference at every P this test runs at is the same bits across rank counts.
  World w;
  const Options o = small_options(400, 16, 6, 0);
  const Problem pb = make_problem(w.comm, o);
  REQUIRE_FALSE(pb.exact_sums);
  const Reference ref =
      serial_kmeans(global_points(o), o.points, o.dim, o.clusters, o.iterations, true, true);
  for (const auto &variant : algorithm_variants()) {
    CAPTURE(describe(variant), w.size);
    with_overrides(w, variant, [&] {
      const Outcome got = solve(w, pb, o, true);
      require_matches_reference(got, ref, true, 0.0);
    });
  }
}

TEST_CASE("HDF5 input: a point set written and read back in parallel gives the same bits",
          "[kmeans][hdf5]") {
  if (!have_hdf5()) return;
  World w;
  Options o = small_options(300, 10, 7, 20);
  // Unique per launch (rank 0's pid): ctest -j runs the np2 tests at 1 and 2 threads together.
  long long pid = static_cast<long long>(getpid());
  MPI_Bcast(&pid, 1, MPI_LONG_LONG, 0, w.comm);
  const std::string file = "kmeans_roundtrip_" + std::to_string(pid) + ".h5";
  o.write_points = file + ":/data/points";
  const Problem synthetic = make_problem(w.comm, o);
  const Outcome a = solve(w, synthetic, o);

  Options in = small_options(0, 1, 7, 0);  // D and N come from the file
  in.input = file + ":/data/points";
  in.quantize_input = 20;
  const Problem read = make_problem(w.comm, in);
  REQUIRE(read.global_points == 300);
  REQUIRE(read.points.extent(1) == 10);
  REQUIRE(read.exact_sums);
  const Outcome b = solve(w, read, in);
  REQUIRE(b.run.digest == a.run.digest);
  REQUIRE(b.labels == a.labels);
  for (std::size_t i = 0; i < a.centroids.size(); ++i)
    REQUIRE(same_bits(a.centroids[i], b.centroids[i]));
  MPI_Barrier(w.comm);
  if (w.rank == 0) std::remove(file.c_str());
}
