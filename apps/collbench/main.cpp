// collbench: times PCOLL_Allreduce for every algorithm against the vendor MPI_Allreduce in one
// run. Conventions of the seed article and OSU/nccl-tests: warm-ups, a barrier before each timed
// call, the maximum over ranks per call, the median (and MAD, min) over trials, algorithms in a
// randomized order each repetition (fixed seed), every result verified outside the timed region
// against the exactly known value (a wrong result makes the run exit non-zero).
//
//   mpirun -np P collbench [--algos vendor,ring,...] [--sizes 8,8192,1048576] [--trials N]
//                          [--warmup N] [--seed S]
#include <mpi.h>
#include <pcoll/pcoll.h>
#include <pcoll/pcoll.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <vector>

namespace {

std::vector<std::string> split(const std::string &s) {
  std::vector<std::string> out;
  std::stringstream ss(s);
  for (std::string item; std::getline(ss, item, ',');)
    if (!item.empty()) out.push_back(item);
  return out;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

std::string human(std::size_t b) {
  char buf[32];
  if (b >= (1u << 20) && b % (1u << 20) == 0)
    std::snprintf(buf, sizeof buf, "%zu MiB", b >> 20);
  else if (b >= 1024 && b % 1024 == 0)
    std::snprintf(buf, sizeof buf, "%zu KiB", b >> 10);
  else
    std::snprintf(buf, sizeof buf, "%zu B", b);
  return buf;
}

[[noreturn]] void usage_error(int rank, const std::string &msg) {
  if (rank == 0)
    std::fprintf(stderr,
                 "collbench: %s\nusage: collbench [--algos a,b,...] [--sizes bytes,...] "
                 "[--trials N] [--warmup N] [--seed S]\n",
                 msg.c_str());
  MPI_Finalize();
  std::exit(2);
}

}  // namespace

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, P = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &P);
  std::vector<std::string> algos = {"vendor", "naive",       "tree", "recursive_doubling",
                                    "ring",   "rabenseifner"};
  std::vector<std::size_t> sizes = {8, 8192, 1 << 20};
  int trials = 50, warmup = 5;
  unsigned seed = 42;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) usage_error(rank, a + " needs a value");
      return argv[++i];
    };
    if (a == "--algos")
      algos = split(value());
    else if (a == "--sizes") {
      sizes.clear();
      for (const auto &s : split(value())) sizes.push_back(std::strtoull(s.c_str(), nullptr, 10));
    } else if (a == "--trials")
      trials = std::atoi(value().c_str());
    else if (a == "--warmup")
      warmup = std::atoi(value().c_str());
    else if (a == "--seed")
      seed = static_cast<unsigned>(std::atoi(value().c_str()));
    else
      usage_error(rank, "unknown argument " + a);
  }
  if (trials < 1 || warmup < 0) usage_error(rank, "--trials must be >= 1, --warmup >= 0");
  // Validate algorithm names up front, with pcoll's own message.
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  for (const auto &a : algos) {
    if (PCOLL_Config_push(MPI_COMM_WORLD, "allreduce", a.c_str()) != MPI_SUCCESS)
      usage_error(rank, "unknown algorithm '" + a + "'");
    PCOLL_Config_pop(MPI_COMM_WORLD);
  }

  int wrong_total = 0;
  std::mt19937 order_gen(seed);
  if (rank == 0) {
    std::printf(
        "# collbench allreduce, P=%d, double sum, %d trials after %d warm-ups, time = max "
        "over ranks per call\n",
        P, trials, warmup);
    std::printf("%-10s %-20s %12s %10s %12s %9s %7s\n", "size", "algorithm", "median_us", "mad_us",
                "min_us", "vs_vendor", "#wrong");
  }
  for (std::size_t bytes : sizes) {
    const int count = static_cast<int>(std::max<std::size_t>(1, bytes / sizeof(double)));
    std::vector<double> in(count), out(count), expected(count);
    for (int j = 0; j < count; ++j) {
      in[j] = double((rank * 7 + j) % 13);
      double e = 0;
      for (int r = 0; r < P; ++r) e += double((r * 7 + j) % 13);
      expected[j] = e;  // exact: small integers
    }
    std::map<std::string, std::vector<double>> times;
    std::map<std::string, int> wrong;
    std::vector<std::string> order = algos;
    for (int t = -warmup; t < trials; ++t) {
      std::shuffle(order.begin(), order.end(), order_gen);
      for (const auto &a : order) {
        pcoll::ScopedConfig use(MPI_COMM_WORLD, "allreduce", a);
        std::fill(out.begin(), out.end(), -1.0);
        MPI_Barrier(MPI_COMM_WORLD);
        const double t0 = MPI_Wtime();
        PCOLL_Allreduce(in.data(), out.data(), count, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        double dt = MPI_Wtime() - t0, worst = 0;
        MPI_Allreduce(&dt, &worst, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        const bool ok = std::memcmp(out.data(), expected.data(), count * sizeof(double)) == 0;
        int bad = ok ? 0 : 1, any_bad = 0;
        MPI_Allreduce(&bad, &any_bad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
        wrong[a] += any_bad;
        if (t >= 0) times[a].push_back(worst);
      }
    }
    const double vendor_med = times.count("vendor") ? median(times["vendor"]) : 0;
    for (const auto &a : algos) {
      const double med = median(times[a]);
      std::vector<double> dev;
      for (double x : times[a]) dev.push_back(std::fabs(x - med));
      const double mad = median(dev);
      const double mn = *std::min_element(times[a].begin(), times[a].end());
      wrong_total += wrong[a];
      if (rank == 0) {
        char ratio[32] = "-";
        if (vendor_med > 0) std::snprintf(ratio, sizeof ratio, "%.2fx", vendor_med / med);
        std::printf("%-10s %-20s %12.2f %10.2f %12.2f %9s %7d\n", human(bytes).c_str(), a.c_str(),
                    med * 1e6, mad * 1e6, mn * 1e6, ratio, wrong[a]);
      }
    }
  }
  if (rank == 0 && wrong_total)
    std::fprintf(stderr, "collbench: %d wrong results: this build is broken\n", wrong_total);
  MPI_Finalize();
  return wrong_total ? 1 : 0;
}
