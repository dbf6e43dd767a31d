#include "output.hpp"

#include <algorithm>
#include <cstdio>
#include <map>
#include <memory>
#include <stdexcept>

namespace collprobe {

namespace {

double median_of(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const std::size_t m = v.size() / 2;
  return v.size() % 2 ? v[m] : 0.5 * (v[m - 1] + v[m]);
}

void print_header(std::FILE *f, const char *prefix, const RunInfo &run) {
  std::fprintf(f, "%sranks %d\n", prefix, run.ranks);
  std::fprintf(f, "%scollective %s\n", prefix, coll_name(run.coll));
  std::fprintf(f, "%slibrary %s\n", prefix, run.library.c_str());
  if (!run.ompi->comms.empty())
    std::fprintf(f,
                 "%sompi forced through MPI_T coll_tuned_allreduce_algorithm, one duplicate "
                 "communicator each (value at start: %s)\n",
                 prefix, run.ompi->start_value.c_str());
  for (const std::string &line : run.order_check)
    std::fprintf(f, "%sorder check (non-commutative op) %s\n", prefix, line.c_str());
  if (!run.ompi->note.empty()) std::fprintf(f, "%snote %s\n", prefix, run.ompi->note.c_str());
  if (run.bandwidth.empty())
    std::fprintf(f, "%snote local bandwidth not measured (simulated time)\n", prefix);
  for (const Bandwidth &b : run.bandwidth)
    std::fprintf(f, "%sbandwidth %s %.2f %.2f  (GB/s best, median: %s on 1 MiB doubles)\n", prefix,
                 b.name.c_str(), b.best_gbs, b.median_gbs, b.what.c_str());
}

}  // namespace

void print_summary(const RunInfo &run, const ProbeResult &res) {
  const char *what = run.coll == Coll::allreduce || run.coll == Coll::reduce ? ", double sum"
                     : run.coll == Coll::barrier                           ? ""
                                                                           : ", doubles";
  std::printf("collprobe: %s%s, P = %d\n", coll_name(run.coll), what, run.ranks);
  print_header(stdout, "  ", run);
  std::printf(
      "  (time per call in us: median and minimum over blocks of the per-block maximum "
      "over ranks; ratio = pmpi median / entry median, < 1: slower than PMPI)\n");
  for (const SizeInfo &s : res.sizes) {
    std::map<std::string, std::vector<double>> by_entry;
    for (const Sample &x : res.samples)
      if (x.bytes == s.bytes) by_entry[x.entry].push_back(x.seconds);
    const double ref = median_of(by_entry["pmpi"]);
    std::printf("\n%s (%zu doubles), %d calls per block\n", human_bytes(s.bytes).c_str(),
                s.bytes / sizeof(double), s.calls);
    std::printf("  %-32s %10s %10s %7s  %s\n", "entry", "median_us", "min_us", "ratio",
                "served by");
    for (const std::string &e : run.entries) {
      const auto &v = by_entry[e];
      const double med = median_of(v);
      std::string served;
      for (const auto &[entry, algo] : s.served)
        if (entry == e) served = algo;
      std::printf("  %-32s %10.2f %10.2f %7.2f  %s\n", e.c_str(), med * 1e6,
                  v.empty() ? 0.0 : *std::min_element(v.begin(), v.end()) * 1e6,
                  med > 0 ? ref / med : 0.0, served.c_str());
    }
    bool header = false;
    for (const OverlapRow &r : res.overlap) {
      if (r.bytes != s.bytes) continue;
      if (!header) {
        std::printf("  overlap (osu_iallreduce: t_pure = start + wait, t_compute = compute of "
                    "t_pure alone, t_total = start + compute + wait; us per call)\n");
        std::printf("  %-32s %10s %10s %10s %8s\n", "entry", "t_pure", "t_compute", "t_total",
                    "overlap");
        header = true;
      }
      std::printf("  %-32s %10.2f %10.2f %10.2f %7.1f%%\n", r.entry.c_str(), r.pure * 1e6,
                  r.compute * 1e6, r.total * 1e6, r.percent);
    }
  }
}

void write_csv(const std::string &path, const RunInfo &run, const ProbeResult &res) {
  std::unique_ptr<std::FILE, int (*)(std::FILE *)> own(nullptr, std::fclose);
  std::FILE *f = stdout;
  if (path != "-") {
    own.reset(std::fopen(path.c_str(), "w"));
    if (!own) throw std::runtime_error("--csv " + path + ": cannot open for writing");
    f = own.get();
  }
  print_header(f, "# ", run);
  std::fprintf(f, "# entries");
  for (const std::string &e : run.entries) std::fprintf(f, " %s", e.c_str());
  std::fprintf(f, "\n");
  for (const SizeInfo &s : res.sizes) {
    std::fprintf(f, "# calls %zu %d\n", s.bytes, s.calls);
    for (const auto &[entry, algo] : s.served)
      std::fprintf(f, "# served %zu %s %s\n", s.bytes, entry.c_str(), algo.c_str());
  }
  std::fprintf(f, "size,bytes,entry,block,seconds\n");
  for (const Sample &x : res.samples)
    std::fprintf(f, "%zu,%zu,%s,%d,%.9e\n", x.bytes / sizeof(double), x.bytes, x.entry.c_str(),
                 x.block, x.seconds);
  if (std::ferror(f) || std::fflush(f) != 0)
    throw std::runtime_error("--csv " + path + ": write failed");
}

}  // namespace collprobe
