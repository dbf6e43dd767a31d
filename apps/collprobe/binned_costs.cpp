#include "binned_costs.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <functional>
#include <random>
#include <vector>

#include "binned.hpp"
#include "binned_kernels.hpp"

namespace collprobe {

namespace {

struct Cost {
  std::string kernel;
  std::size_t n;
  double min_ns, median_ns;  // per value
};

// Out of line, so that the plain loops are not folded into the timing loop.
[[gnu::noinline]] double plain_sum(const double *x, std::size_t n) {
  double s = 0;
  for (std::size_t i = 0; i < n; ++i) s += x[i];
  return s;
}
[[gnu::noinline]] double plain_dot(const double *x, const double *y, std::size_t n) {
  double s = 0;
  for (std::size_t i = 0; i < n; ++i) s += x[i] * y[i];
  return s;
}

// Each repetition runs `kernel` over `values` values in total, at least ~2 ms of work.
Cost time_kernel(const std::string &name, std::size_t n, std::size_t values,
                 const std::function<void()> &kernel) {
  using clock = std::chrono::steady_clock;
  for (int i = 0; i < 3; ++i) kernel();
  int inner = 1;
  for (;;) {  // enough calls per repetition to last ~2 ms
    const auto t0 = clock::now();
    for (int i = 0; i < inner; ++i) kernel();
    const double s = std::chrono::duration<double>(clock::now() - t0).count();
    if (s > 2e-3 || inner >= (1 << 24)) break;
    inner *= 2;
  }
  std::vector<double> t;
  for (int r = 0; r < 15; ++r) {
    const auto t0 = clock::now();
    for (int i = 0; i < inner; ++i) kernel();
    t.push_back(std::chrono::duration<double>(clock::now() - t0).count() * 1e9 /
                (static_cast<double>(inner) * static_cast<double>(values)));
  }
  std::sort(t.begin(), t.end());
  return {name, n, t.front(), t[t.size() / 2]};
}

}  // namespace

int binned_costs(const std::string &csv, bool quiet) {
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  std::vector<Cost> out;
  volatile double sink = 0;
  // The addends of a dot product or a centroid sum: values of mixed sign over a few decades.
  auto values = [&](std::size_t n) {
    std::vector<double> v(n);
    for (auto &x : v) x = u(rng) * std::ldexp(1.0, static_cast<int>(rng() % 20) - 10);
    return v;
  };
  if (!quiet)
    std::fprintf(stderr, "collprobe: binned kernels: %s\n", pcoll::binned::kernel_name());
  for (const std::size_t n : {std::size_t(24), std::size_t(64), std::size_t(4096)}) {
    const auto x = values(n), y = values(n);
    PCOLL_Binned b;
    out.push_back(time_kernel("plain_sum", n, n, [&] { sink = sink + plain_sum(x.data(), n); }));
    out.push_back(time_kernel("binned_add", n, n, [&] {
      pcoll::binned::clear(b);
      for (std::size_t i = 0; i < n; ++i) pcoll::binned::add(b, x[i]);
      sink = sink + static_cast<double>(b.top);
    }));
    // Both deposit kernels, whichever the library picks (kernel_name()).
    using Deposit = void (*)(PCOLL_Binned &, const double *, const double *, std::size_t);
    std::vector<std::pair<std::string, Deposit>> kernels = {{"portable", &pcoll::binned::detail::deposit_portable}};
    if (pcoll::binned::detail::avx2_available()) kernels.emplace_back("avx2", &pcoll::binned::detail::deposit_avx2);
    if (pcoll::binned::detail::avx512_available())
      kernels.emplace_back("avx512", &pcoll::binned::detail::deposit_avx512);
    for (const auto &[name, deposit] : kernels) {
      out.push_back(time_kernel("binned_add_n/" + name, n, n, [&, deposit = deposit] {
        pcoll::binned::clear(b);
        deposit(b, x.data(), nullptr, n);
        sink = sink + static_cast<double>(b.top);
      }));
    }
    out.push_back(time_kernel("plain_dot", n, n, [&] { sink = sink + plain_dot(x.data(), y.data(), n); }));
    for (const auto &[name, deposit] : kernels) {
      out.push_back(time_kernel("binned_dot_n/" + name, n, n, [&, deposit = deposit] {
        pcoll::binned::clear(b);
        deposit(b, x.data(), y.data(), n);
        sink = sink + static_cast<double>(b.top);
      }));
    }
  }
  // The allreduce's conversions at 1 KiB and 64 KiB of doubles (128 and 8192 values).
  for (const std::size_t n : {std::size_t(128), std::size_t(8192)}) {
    const auto x = values(n), y = values(n);
    std::vector<PCOLL_Binned> a(n), c(n);
    std::vector<double> r(n);
    pcoll::binned::from_doubles(y.data(), n, c.data());
    out.push_back(time_kernel("from_doubles", n, n, [&] { pcoll::binned::from_doubles(x.data(), n, a.data()); }));
    out.push_back(time_kernel("merge", n, n, [&] { pcoll::binned::reduce(a.data(), c.data(), n, true); }));
    pcoll::binned::from_doubles(y.data(), n, c.data());
    pcoll::binned::reduce(a.data(), c.data(), n, true);
    out.push_back(time_kernel("to_doubles", n, n, [&] { pcoll::binned::to_doubles(c.data(), n, r.data()); }));
  }
  std::printf("# binned kernels: %s; ns per value, min and median of 15 repetitions\n",
              pcoll::binned::kernel_name());
  std::printf("%-22s %6s %10s %10s\n", "kernel", "n", "min_ns", "median_ns");
  for (const Cost &c : out)
    std::printf("%-22s %6zu %10.2f %10.2f\n", c.kernel.c_str(), c.n, c.min_ns, c.median_ns);
  if (!csv.empty()) {
    std::FILE *f = csv == "-" ? stdout : std::fopen(csv.c_str(), "w");
    if (f == nullptr) {
      std::fprintf(stderr, "collprobe: cannot write %s\n", csv.c_str());
      return 1;
    }
    std::fprintf(f, "# binned kernels: %s\nkernel,n,ns_per_value_min,ns_per_value_median\n",
                 pcoll::binned::kernel_name());
    for (const Cost &c : out)
      std::fprintf(f, "%s,%zu,%.3f,%.3f\n", c.kernel.c_str(), c.n, c.min_ns, c.median_ns);
    if (f != stdout) std::fclose(f);
  }
  return 0;
}

}  // namespace collprobe
