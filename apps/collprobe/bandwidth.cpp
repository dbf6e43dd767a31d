#include "bandwidth.hpp"

#include <algorithm>
#include <functional>

#include "reduce.hpp"  // pcoll's local reduction (pcoll_internal)

namespace collprobe {

namespace {

// Out of line, so the compiler cannot fold repetitions together or drop the stores.
[[gnu::noinline]] void stream_add(const double *__restrict a, const double *__restrict b,
                                  double *__restrict c, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) c[i] = a[i] + b[i];
}

Bandwidth measure(const char *name, const char *what, int reps, std::size_t bytes_moved,
                  const std::function<void()> &kernel, MPI_Comm comm) {
  for (int i = 0; i < 5; ++i) kernel();  // first touch, caches, frequency
  std::vector<double> t;
  for (int r = 0; r < reps; ++r) {
    MPI_Barrier(comm);
    const double t0 = MPI_Wtime();
    kernel();
    double mine = MPI_Wtime() - t0, worst = 0;
    MPI_Allreduce(&mine, &worst, 1, MPI_DOUBLE, MPI_MAX, comm);
    t.push_back(worst);
  }
  std::sort(t.begin(), t.end());
  const double median = t[t.size() / 2];
  return {name, what, bytes_moved / t.front() * 1e-9, bytes_moved / median * 1e-9};
}

}  // namespace

std::vector<Bandwidth> measure_local_bandwidth(int reps, MPI_Comm comm) {
#ifdef PCOLL_SMPI
  // Simulated time charges no local computation here: the numbers would be meaningless.
  (void)reps, (void)comm;
  return {};
#endif
  const std::size_t n = (std::size_t(1) << 20) / sizeof(double);
  std::vector<double> a(n, 1.0), b(n, 2.0), c(n, 0.0);
  const std::size_t moved = 3 * sizeof(double) * n;
  std::vector<Bandwidth> out;
  out.push_back(measure(
      "stream_add", "c[i] = a[i] + b[i]", reps, moved,
      [&] { stream_add(a.data(), b.data(), c.data(), n); }, comm));
  out.push_back(measure(
      "reduce_local", "MPI_Reduce_local(a, c, MPI_DOUBLE, MPI_SUM)", reps, moved,
      [&] { MPI_Reduce_local(a.data(), c.data(), static_cast<int>(n), MPI_DOUBLE, MPI_SUM); },
      comm));
  const pcoll::Reducer reducer(MPI_DOUBLE, sizeof(double), MPI_SUM);
  out.push_back(measure(
      "pcoll_reduce", "pcoll::Reducer(MPI_DOUBLE, MPI_SUM).apply(a, c)", reps, moved,
      [&] { reducer.apply(a.data(), c.data(), n, true); }, comm));
  return out;
}

}  // namespace collprobe
