// Known fields and verification; see field.hpp.
#include "field.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <stdexcept>

namespace pcoll::fft3d {

namespace {

constexpr double kTwoPi = 6.28318530717958647692528676655900577;

int wrap(long long k, int n) {
  const long long r = k % n;
  return static_cast<int>(r < 0 ? r + n : r);
}

std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

// Visits every local element: f(global index, local offset).
template <class F>
void for_each(const Layout &l, F &&f) {
  std::array<int, 3> g;
  const int a0 = l.order[0], a1 = l.order[1], a2 = l.order[2];
  std::int64_t off = 0;
  for (int i = 0; i < l.n[a0]; ++i)
    for (int j = 0; j < l.n[a1]; ++j)
      for (int k = 0; k < l.n[a2]; ++k, ++off) {
        g[a0] = l.lo[a0] + i;
        g[a1] = l.lo[a1] + j;
        g[a2] = l.lo[a2] + k;
        f(g, off);
      }
}

double max_over(MPI_Comm comm, double v) {
  MPI_Allreduce(MPI_IN_PLACE, &v, 1, MPI_DOUBLE, MPI_MAX, comm);
  return v;
}

}  // namespace

const char *field_name(FieldKind f) {
  return f == FieldKind::waves ? "waves" : "random";
}

std::vector<Wave> default_waves(const std::array<int, 3> &grid) {
  const std::vector<Wave> candidates = {
      {{0, 0, 0}, Complex(0.5, 0)},
      {{1, 2, 3}, Complex(1.0, -0.25)},
      {{-3, 1, -2}, Complex(-0.75, 0.5)},
      {{grid[0] / 2, -grid[1] / 3, grid[2] - 1}, Complex(0.125, 2.0)},
  };
  std::vector<Wave> waves;
  for (const Wave &w : candidates) {
    bool distinct = true;
    for (const Wave &v : waves)
      distinct = distinct && !(wrap(v.k[0], grid[0]) == wrap(w.k[0], grid[0]) &&
                               wrap(v.k[1], grid[1]) == wrap(w.k[1], grid[1]) &&
                               wrap(v.k[2], grid[2]) == wrap(w.k[2], grid[2]));
    if (distinct) waves.push_back(w);
  }
  return waves;
}

Complex field_value(const std::array<int, 3> &g, const std::array<int, 3> &grid, FieldKind kind,
                    const std::vector<Wave> &waves) {
  if (kind == FieldKind::random) {
    const std::uint64_t idx =
        (std::uint64_t(g[0]) * grid[1] + std::uint64_t(g[1])) * grid[2] + std::uint64_t(g[2]);
    const std::uint64_t a = splitmix64(2 * idx), b = splitmix64(2 * idx + 1);
    // 53-bit uniform in [-1, 1)
    return Complex(double(a >> 11) * 0x1p-52 - 1.0, double(b >> 11) * 0x1p-52 - 1.0);
  }
  // The phase k.g/N reduced exactly in integers, so the value is the same whoever computes it.
  const long long n = 1LL * grid[0] * grid[1] * grid[2];
  Complex v(0, 0);
  for (const Wave &w : waves) {
    long long t = 0;
    for (int a = 0; a < 3; ++a) {
      const long long other = n / grid[a];
      t += (1LL * wrap(w.k[a], grid[a]) * g[a] % grid[a]) * other;
    }
    const double angle = kTwoPi * double(t % n) / double(n);
    v += w.amplitude * Complex(std::cos(angle), std::sin(angle));
  }
  return v;
}

Complex spectrum_value(const std::array<int, 3> &k, const std::array<int, 3> &grid,
                       const std::vector<Wave> &waves) {
  const double n = double(grid[0]) * grid[1] * grid[2];
  Complex v(0, 0);
  for (const Wave &w : waves)
    if (wrap(w.k[0], grid[0]) == k[0] && wrap(w.k[1], grid[1]) == k[1] &&
        wrap(w.k[2], grid[2]) == k[2])
      v += n * w.amplitude;
  return v;
}

void fill(Complex *data, const Layout &l, const std::array<int, 3> &grid, FieldKind kind,
          const std::vector<Wave> &waves) {
  for_each(l, [&](const std::array<int, 3> &g, std::int64_t off) {
    data[off] = field_value(g, grid, kind, waves);
  });
}

double spectrum_error(MPI_Comm comm, const Complex *data, const Layout &l,
                      const std::array<int, 3> &grid, const std::vector<Wave> &waves) {
  double amax = 0;
  for (const Wave &w : waves) amax = std::max(amax, std::abs(w.amplitude));
  const double scale = double(grid[0]) * grid[1] * grid[2] * amax;
  double err = 0;
  for_each(l, [&](const std::array<int, 3> &k, std::int64_t off) {
    err = std::max(err, std::abs(data[off] - spectrum_value(k, grid, waves)));
  });
  return max_over(comm, err) / scale;
}

double roundtrip_error(MPI_Comm comm, const Complex *data, const Layout &l,
                       const std::array<int, 3> &grid, FieldKind kind,
                       const std::vector<Wave> &waves) {
  const double n = double(grid[0]) * grid[1] * grid[2];
  double err = 0, fmax = 0;
  for_each(l, [&](const std::array<int, 3> &g, std::int64_t off) {
    const Complex f = field_value(g, grid, kind, waves);
    fmax = std::max(fmax, std::abs(f));
    err = std::max(err, std::abs(data[off] - n * f));
  });
  return max_over(comm, err) / (n * max_over(comm, fmax));
}

double real_field_value(const std::array<int, 3> &g, const std::array<int, 3> &grid, FieldKind kind,
                        const std::vector<Wave> &waves) {
  return field_value(g, grid, kind, waves).real();
}

Complex real_spectrum_value(const std::array<int, 3> &k, const std::array<int, 3> &grid,
                            const std::vector<Wave> &waves) {
  const std::array<int, 3> minus = {wrap(-k[0], grid[0]), wrap(-k[1], grid[1]),
                                    wrap(-k[2], grid[2])};
  return 0.5 * (spectrum_value(k, grid, waves) + std::conj(spectrum_value(minus, grid, waves)));
}

void fill_real(double *data, const Layout &l, const std::array<int, 3> &grid, FieldKind kind,
               const std::vector<Wave> &waves) {
  for_each(l, [&](const std::array<int, 3> &g, std::int64_t off) {
    data[off] = g[2] < grid[2] ? real_field_value(g, grid, kind, waves) : 0.0;
  });
}

double real_spectrum_error(MPI_Comm comm, const Complex *data, const Layout &l,
                           const std::array<int, 3> &grid, const std::vector<Wave> &waves) {
  double amax = 0;
  for (const Wave &w : waves) amax = std::max(amax, std::abs(w.amplitude));
  const double scale = double(grid[0]) * grid[1] * grid[2] * amax;
  double err = 0;
  for_each(l, [&](const std::array<int, 3> &k, std::int64_t off) {
    err = std::max(err, std::abs(data[off] - real_spectrum_value(k, grid, waves)));
  });
  return max_over(comm, err) / scale;
}

double real_roundtrip_error(MPI_Comm comm, const double *data, const Layout &l,
                            const std::array<int, 3> &grid, FieldKind kind,
                            const std::vector<Wave> &waves) {
  const double n = double(grid[0]) * grid[1] * grid[2];
  double err = 0, fmax = 0;
  for_each(l, [&](const std::array<int, 3> &g, std::int64_t off) {
    if (g[2] >= grid[2]) return;  // padding
    const double f = real_field_value(g, grid, kind, waves);
    fmax = std::max(fmax, std::abs(f));
    err = std::max(err, std::abs(data[off] - n * f));
  });
  return max_over(comm, err) / (n * max_over(comm, fmax));
}

std::vector<Complex> gather_global(MPI_Comm comm, const Complex *data, const Layout &l,
                                   const std::array<int, 3> &grid, int root) {
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  int box[9] = {l.lo[0], l.lo[1],    l.lo[2],    l.n[0],    l.n[1],
                l.n[2],  l.order[0], l.order[1], l.order[2]};
  std::vector<int> boxes(rank == root ? 9 * size : 0);
  MPI_Gather(box, 9, MPI_INT, boxes.data(), 9, MPI_INT, root, comm);
  const std::int64_t total = std::int64_t(grid[0]) * grid[1] * grid[2];
  if (total > INT32_MAX)
    throw std::runtime_error("gather_global: grid too large to assemble on one rank");
  std::vector<int> counts(size), displs(size);
  std::vector<Complex> all, global;
  if (rank == root) {
    int at = 0;
    for (int r = 0; r < size; ++r) {
      counts[r] = boxes[9 * r + 3] * boxes[9 * r + 4] * boxes[9 * r + 5];
      displs[r] = at;
      at += counts[r];
    }
    all.resize(at);
    global.resize(total);
  }
  MPI_Gatherv(data, static_cast<int>(l.volume()), MPI_C_DOUBLE_COMPLEX, all.data(), counts.data(),
              displs.data(), MPI_C_DOUBLE_COMPLEX, root, comm);
  if (rank != root) return {};
  for (int r = 0; r < size; ++r) {
    Layout b;
    b.lo = {boxes[9 * r], boxes[9 * r + 1], boxes[9 * r + 2]};
    b.n = {boxes[9 * r + 3], boxes[9 * r + 4], boxes[9 * r + 5]};
    b.order = {boxes[9 * r + 6], boxes[9 * r + 7], boxes[9 * r + 8]};
    for_each(b, [&](const std::array<int, 3> &g, std::int64_t off) {
      global[(std::int64_t(g[0]) * grid[1] + g[1]) * grid[2] + g[2]] = all[displs[r] + off];
    });
  }
  return global;
}

double relative_difference(const std::vector<Complex> &a, const std::vector<Complex> &b) {
  if (a.size() != b.size()) throw std::logic_error("relative_difference: sizes differ");
  double diff = 0, bmax = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    diff = std::max(diff, std::abs(a[i] - b[i]));
    bmax = std::max(bmax, std::abs(b[i]));
  }
  return bmax > 0 ? diff / bmax : diff;
}

std::uint64_t digest(MPI_Comm comm, const void *data, std::int64_t bytes) {
  // FNV-1a over the bytes, then the per-rank digests folded in rank order.
  std::uint64_t h = 1469598103934665603ull;
  const auto *p = static_cast<const unsigned char *>(data);
  for (std::int64_t i = 0; i < bytes; ++i) h = (h ^ p[i]) * 1099511628211ull;
  int size = 1;
  MPI_Comm_size(comm, &size);
  std::vector<std::uint64_t> all(size);
  MPI_Allgather(&h, 1, MPI_UINT64_T, all.data(), 1, MPI_UINT64_T, comm);
  std::uint64_t d = 1469598103934665603ull;
  for (std::uint64_t x : all) d = splitmix64(d ^ x);
  return d;
}

}  // namespace pcoll::fft3d
