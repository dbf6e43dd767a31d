// Lloyd iterations with three PCOLL_Allreduce calls each; see solver.hpp.
#include "solver.hpp"

#include <pcoll/trace.h>
#include <pcoll/pcoll.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <sstream>
#include <stdexcept>

#include "dataset.hpp"

#ifdef PCOLL_SMPI
#include <simgrid/host.h>
#endif

namespace pcoll::kmeans {

namespace {

void check_mpi(int rc, const char *what) {
  if (rc != MPI_SUCCESS) throw std::runtime_error(std::string("MPI error in ") + what);
}

// In SMPI builds, charge `seconds` of computation to the simulated rank: executed as flops at
// this host's speed in the platform file, so exactly `seconds` pass whatever that speed is.
void inject_compute(double seconds) {
#ifdef PCOLL_SMPI
  if (seconds > 0) smpi_execute_flops(seconds * sg_host_get_speed(sg_host_self()));
#else
  (void)seconds;
#endif
}

std::uint64_t mix64(std::uint64_t z) {
  z += 0x9e3779b97f4a7c15ULL;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

}  // namespace

Problem make_problem(MPI_Comm comm, const Options &opt) {
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  Problem pb;
  int dim = opt.dim;
  std::int64_t n = opt.points > 0 ? opt.points : opt.points_per_rank * size;
  H5Location in;
  if (!opt.input.empty()) {
    in = parse_h5_location(opt.input);
    h5_dataset_shape(comm, in, n, dim);  // D and N come from the file
  }
  if (n < 1) throw std::runtime_error("k-means needs at least one point");
  if (n > std::int64_t{1} << 31)
    throw std::runtime_error("more than 2^31 points are not supported (int labels/counts)");
  const Slice mine = block_slice(n, size, rank);
  pb.first = mine.first;
  pb.global_points = n;
  pb.points = kernels::Matrix("pcoll::kmeans::points", mine.count, dim);
  pb.initial = kernels::Matrix("pcoll::kmeans::initial", opt.clusters, dim);
  std::vector<std::int64_t> seeds(opt.clusters);
  for (int k = 0; k < opt.clusters; ++k) seeds[k] = initial_index(n, opt.clusters, k);

  std::ostringstream origin;
  int q = 0;
  if (opt.input.empty()) {
    BlobSpec spec;
    spec.seed = opt.seed;
    spec.points = n;
    spec.dim = dim;
    spec.blobs = opt.blobs > 0 ? opt.blobs : opt.clusters;
    spec.spread = opt.spread;
    spec.sigma = opt.sigma;
    spec.quantize_bits = q = opt.quantize_bits;
    generate_points(spec, mine.first, pb.points);
    for (int k = 0; k < opt.clusters; ++k)
      for (int d = 0; d < dim; ++d) pb.initial(k, d) = blob_coordinate(spec, seeds[k], d);
    origin << "synthetic blobs (seed " << spec.seed << ", " << spec.blobs << " blobs, sigma "
           << spec.sigma << ", spread " << spec.spread << ")";
  } else {
    h5_read_rows(comm, in, mine, pb.points);
    h5_read_selected_rows(comm, in, seeds.data(), opt.clusters, pb.initial);
    q = opt.quantize_input;
    if (q > 0) {
      // Same rounding as the generator, so the sums become exact (see dataset.hpp).
      auto round = [q](double v) {
        v = std::ldexp(std::nearbyint(std::ldexp(v, q)), -q);
        return std::fmin(kCoordinateBound, std::fmax(-kCoordinateBound, v));
      };
      for (std::size_t i = 0; i < pb.points.extent(0); ++i)
        for (int d = 0; d < dim; ++d) pb.points(i, d) = round(pb.points(i, d));
      for (int k = 0; k < opt.clusters; ++k)
        for (int d = 0; d < dim; ++d) pb.initial(k, d) = round(pb.initial(k, d));
    }
    origin << "HDF5 " << in.file << ":" << in.dataset;
  }
  // Sums are exact only if the coordinates really are on the grid (real data may exceed the
  // bound): check locally, agree globally.
  int on_grid = q > 0 && n <= exact_sum_limit(q);
  if (on_grid && !opt.input.empty()) {
    for (std::size_t i = 0; i < pb.points.extent(0) && on_grid; ++i)
      for (int d = 0; d < dim; ++d) {
        const double v = pb.points(i, d);
        if (std::fabs(v) > kCoordinateBound || std::ldexp(v, q) != std::nearbyint(std::ldexp(v, q)))
          on_grid = 0;
      }
  }
  check_mpi(MPI_Allreduce(MPI_IN_PLACE, &on_grid, 1, MPI_INT, MPI_LAND, comm), "agreement");
  pb.exact_sums = on_grid != 0;
  origin << (pb.exact_sums ? ", coordinates on a 2^-" + std::to_string(q) + " grid: sums exact"
                           : ", sums rounded (order-dependent in the last bits)");
  pb.origin = origin.str();

  if (!opt.write_points.empty())
    h5_write_rows(comm, parse_h5_location(opt.write_points), n, mine, pb.points);
  return pb;
}

LloydSolver::LloydSolver(MPI_Comm comm, const Problem &problem, bool reproducible)
    : comm_(comm),
      problem_(problem),
      clusters_(static_cast<int>(problem.initial.extent(0))),
      dim_(static_cast<int>(problem.initial.extent(1))),
      centroids_("pcoll::kmeans::centroids", clusters_, dim_),
      sums_("pcoll::kmeans::sums", clusters_, dim_),
      counts_("pcoll::kmeans::counts", clusters_),
      labels_("pcoll::kmeans::labels", problem.points.extent(0)),
      dist2_("pcoll::kmeans::dist2", problem.points.extent(0)),
      ws_(static_cast<int>(problem.points.extent(0)), clusters_),
      reproducible_(reproducible) {
  if (static_cast<std::int64_t>(clusters_) * dim_ > std::int64_t{1} << 31)
    throw std::runtime_error("K*D must fit an int (the count of one MPI call)");
  if (reproducible_) {
    const std::size_t kd = static_cast<std::size_t>(clusters_) * static_cast<std::size_t>(dim_);
    const auto blocks = static_cast<std::size_t>(Kokkos::DefaultHostExecutionSpace::concurrency());
    bins_.resize(kd);
    thread_bins_.resize(blocks * kd);
    thread_counts_.resize(blocks * static_cast<std::size_t>(clusters_));
    order_.resize(problem.points.extent(0));
  }
}

// The reproducible accumulation: the points in one contiguous block per thread, each block into
// its own K*D binned sums and K counts, then the blocks merged (binned sums in any order give the
// same bits, so neither the blocks nor the decomposition across ranks matter). Within a block the
// points are grouped by cluster (a counting sort of their indices), and each cluster's
// coordinates are deposited a tile at a time, one coordinate's column after another, through
// PCOLL_Binned_add_n: the vector deposit kernel instead of one call per coordinate.
void LloydSolver::accumulate_binned() {
  const auto x = problem_.points;
  const auto labels = labels_;
  const int n = static_cast<int>(x.extent(0)), dim = dim_, k_count = clusters_;
  const int blocks = static_cast<int>(thread_counts_.size()) / k_count;
  PCOLL_Binned *tb = thread_bins_.data();
  int *tc = thread_counts_.data();
  int *order = order_.data();
  const std::size_t kd = bins_.size();
  Kokkos::parallel_for(
      "pcoll::kmeans::binned_accumulate",
      Kokkos::RangePolicy<Kokkos::DefaultHostExecutionSpace>(0, blocks), [=](const int b) {
        PCOLL_Binned *mine = tb + static_cast<std::size_t>(b) * kd;
        int *count = tc + static_cast<std::size_t>(b) * static_cast<std::size_t>(k_count);
        for (std::size_t j = 0; j < kd; ++j) PCOLL_Binned_clear(&mine[j]);
        for (int k = 0; k < k_count; ++k) count[k] = 0;
        const int first = static_cast<int>(static_cast<std::int64_t>(n) * b / blocks);
        const int last = static_cast<int>(static_cast<std::int64_t>(n) * (b + 1) / blocks);
        for (int i = first; i < last; ++i) ++count[labels(i)];
        std::vector<int> at(static_cast<std::size_t>(k_count) + 1, first);
        for (int k = 0; k < k_count; ++k) at[static_cast<std::size_t>(k) + 1] = at[static_cast<std::size_t>(k)] + count[k];
        std::vector<int> next(at.begin(), at.end() - 1);
        for (int i = first; i < last; ++i) order[next[static_cast<std::size_t>(labels(i))]++] = i;
        constexpr int kTile = 256;  // points per tile: dim columns of kTile doubles
        std::vector<double> tile(static_cast<std::size_t>(kTile) * static_cast<std::size_t>(dim));
        for (int k = 0; k < k_count; ++k) {
          PCOLL_Binned *sums = mine + static_cast<std::size_t>(k) * static_cast<std::size_t>(dim);
          for (int p = at[static_cast<std::size_t>(k)]; p < at[static_cast<std::size_t>(k) + 1]; p += kTile) {
            const int len = std::min(kTile, at[static_cast<std::size_t>(k) + 1] - p);
            for (int j = 0; j < len; ++j)
              for (int d = 0; d < dim; ++d)
                tile[static_cast<std::size_t>(d) * kTile + static_cast<std::size_t>(j)] = x(order[p + j], d);
            for (int d = 0; d < dim; ++d)
              PCOLL_Binned_add_n(&sums[d], tile.data() + static_cast<std::size_t>(d) * kTile,
                                 static_cast<std::size_t>(len));
          }
        }
      });
  Kokkos::DefaultHostExecutionSpace().fence();
  for (int k = 0; k < k_count; ++k) {
    int c = 0;
    for (int b = 0; b < blocks; ++b) c += tc[static_cast<std::size_t>(b) * k_count + k];
    counts_(k) = c;
  }
  for (std::size_t j = 0; j < kd; ++j) {
    bins_[j] = tb[j];
    for (int b = 1; b < blocks; ++b) PCOLL_Binned_merge(&bins_[j], &tb[static_cast<std::size_t>(b) * kd + j]);
  }
}

RunResult LloydSolver::run(int max_iterations, bool stop_when_converged) {
  RunResult res;
  Kokkos::deep_copy(centroids_, problem_.initial);
  Kokkos::deep_copy(labels_, -1);
  kernels::ConstMatrix x = problem_.points;
  const int kd = clusters_ * dim_;
  res.per_iteration.reserve(max_iterations);

  // With tracing on (PCOLL_TRACE or --trace), the run, every iteration (numbered across runs, so
  // each is unique in the file) and its phases go into the trace's /app records, and the
  // collective calls made inside an iteration carry its number. Off, each call is one branch.
  check_mpi(MPI_Barrier(comm_), "barrier");
  PCOLL_Trace_phase_begin("kmeans_run");
  const double start = MPI_Wtime();
  for (int it = 0; it < max_iterations; ++it) {
    PCOLL_Trace_iteration_begin(traced_iterations_++);
    PhaseTimes t;
    double t0 = MPI_Wtime();
    // (i) assign, (ii) accumulate -- local, Kokkos/OpenMP
    PCOLL_Trace_phase_begin("compute");
    int changed = static_cast<int>(kernels::kmeans_assign(x, centroids_, labels_, dist2_));
    if (reproducible_)
      accumulate_binned();
    else
      kernels::kmeans_accumulate(x, labels_, counts_, sums_, ws_);
    inject_compute(injected_compute_);
    PCOLL_Trace_phase_end("compute");
    double t1 = MPI_Wtime();
    t.compute = t1 - t0;
    // (iii) the three allreduces of the paper, in place, MPI semantics
    PCOLL_Trace_phase_begin("allreduce_counts");
    check_mpi(pcoll::allreduce<int>(nullptr, counts_.data(), clusters_, MPI_SUM, comm_), "counts");
    PCOLL_Trace_phase_end("allreduce_counts");
    double t2 = MPI_Wtime();
    t.ar_counts = t2 - t1;
    if (it == 0) {
      const char *name = "";
      PCOLL_Get_last_algorithm(comm_, &name);
      res.served_counts = name;
      t2 = MPI_Wtime();
    }
    PCOLL_Trace_phase_begin("allreduce_sums");
    if (reproducible_) {
      check_mpi(PCOLL_Allreduce(MPI_IN_PLACE, bins_.data(), kd, PCOLL_Binned_type(),
                                PCOLL_Binned_op(), comm_),
                "sums");
    } else {
      check_mpi(pcoll::allreduce<double>(nullptr, sums_.data(), kd, MPI_SUM, comm_), "sums");
    }
    PCOLL_Trace_phase_end("allreduce_sums");
    double t3 = MPI_Wtime();
    t.ar_sums = t3 - t2;
    if (it == 0) {
      const char *name = "";
      PCOLL_Get_last_algorithm(comm_, &name);
      res.served_sums = name;
      t3 = MPI_Wtime();
    }
    PCOLL_Trace_phase_begin("allreduce_conv");
    check_mpi(pcoll::allreduce<int>(nullptr, &changed, 1, MPI_SUM, comm_), "convergence");
    PCOLL_Trace_phase_end("allreduce_conv");
    double t4 = MPI_Wtime();
    t.ar_conv = t4 - t3;
    if (it == 0) {
      const char *name = "";
      PCOLL_Get_last_algorithm(comm_, &name);
      res.served_conv = name;
      t4 = MPI_Wtime();
    }
    // Every rank now holds bit-identical counts and sums (pcoll's guarantee), so every rank
    // computes bit-identical centroids; empty clusters keep theirs.
    PCOLL_Trace_phase_begin("compute");
    if (reproducible_)
      for (int k = 0; k < clusters_; ++k)
        for (int d = 0; d < dim_; ++d)
          sums_(k, d) = PCOLL_Binned_value(&bins_[static_cast<std::size_t>(k) * dim_ + d]);
    kernels::kmeans_update(counts_, sums_, centroids_);
    PCOLL_Trace_phase_end("compute");
    t.compute += MPI_Wtime() - t4;
    PCOLL_Trace_iteration_end();
    res.per_iteration.push_back(t);
    res.iterations = it + 1;
    if (changed == 0) {
      res.converged = true;
      if (stop_when_converged) break;
    }
  }
  res.wall = MPI_Wtime() - start;
  PCOLL_Trace_phase_end("kmeans_run");

  // Untimed: final assignment against the final centroids, inertia and a result digest.
  kernels::kmeans_assign(x, centroids_, labels_, dist2_);
  double inertia = kernels::sum_ordered(dist2_);
  check_mpi(MPI_Allreduce(MPI_IN_PLACE, &inertia, 1, MPI_DOUBLE, MPI_SUM, comm_), "inertia");
  res.inertia = inertia;
  // Labels enter through a commutative sum of per-point hashes (wrapping unsigned adds are
  // exact), so the digest does not depend on how the points are partitioned.
  std::uint64_t label_hash = 0;
  for (std::size_t i = 0; i < labels_.extent(0); ++i)
    label_hash += mix64((static_cast<std::uint64_t>(problem_.first + i) << 20) ^
                        static_cast<std::uint64_t>(labels_(i)));
  check_mpi(MPI_Allreduce(MPI_IN_PLACE, &label_hash, 1, MPI_UINT64_T, MPI_SUM, comm_), "digest");
  res.digest = centroid_hash(centroids_) ^ mix64(label_hash) ^
               mix64(0x6974657273ULL + static_cast<std::uint64_t>(res.iterations));
  return res;
}

std::uint64_t centroid_hash(kernels::ConstMatrix centroids) {
  std::uint64_t h = 0xcbf29ce484222325ULL;
  const auto *bytes = reinterpret_cast<const unsigned char *>(centroids.data());
  const std::size_t n = centroids.extent(0) * centroids.extent(1) * sizeof(double);
  for (std::size_t i = 0; i < n; ++i) {
    h ^= bytes[i];
    h *= 0x100000001b3ULL;
  }
  return h;
}

}  // namespace pcoll::kmeans
