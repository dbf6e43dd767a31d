// Text, CSV and HDF5 reports of the fft3d driver (rank 0 only).
#include "report.hpp"

#include <pcoll/pcoll.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iomanip>
#include <map>
#include <sstream>
#include <stdexcept>

#include "../common/speedup.hpp"
#include "layout.hpp"

namespace pcoll::fft3d {

namespace {

double median(const std::vector<double> &v) {
  return apps::spread(v).median;
}

std::string grid_string(const std::array<int, 3> &g) {
  return std::to_string(g[0]) + "x" + std::to_string(g[1]) + "x" + std::to_string(g[2]);
}

std::string bytes_string(std::int64_t lo, std::int64_t hi) {
  return lo == hi ? std::to_string(lo) + " B"
                  : std::to_string(lo) + ".." + std::to_string(hi) + " B";
}

std::string check(double err, double tol) {
  if (err < 0) return "not checked";
  std::ostringstream os;
  os << std::setprecision(2) << err << (err <= tol ? " ok" : " WRONG");
  return os.str();
}

}  // namespace

double RunSetup::flops() const {
  return fft_flops(grid) * (transform == "r2c" ? 0.5 : 1.0);
}

void print_header(std::ostream &os, const RunSetup &s) {
  const long long points = 1LL * s.grid[0] * s.grid[1] * s.grid[2];
  os << "fft3d: deck " << s.deck << " | P = " << s.ranks << " ranks x " << s.threads
     << " OpenMP threads | grid " << grid_string(s.grid) << " (" << points << " points) | "
     << s.transform << " " << s.decomp << ", process grid " << s.p0 << "x" << s.p1 << " | field "
     << s.field << " | FFTW planner " << s.planner << "\n";
  std::int64_t biggest = 0;
  for (const auto &t : s.transposes) {
    os << "fft3d: transpose among " << t.where << ": PCOLL_"
       << (t.collective == "alltoall" ? "Alltoall" : "Alltoallv") << " over " << t.peers
       << " ranks, " << bytes_string(t.min_bytes, t.max_bytes) << " per destination";
    if (t.collective == "alltoall")
      os << " (auto on one node: " << (t.max_bytes >= s.pairwise_threshold ? "pairwise" : "routed")
         << ", pairwise_threshold " << s.pairwise_threshold
         << " B; across nodes the cost model chooses)";
    else
      os << " (alltoallv auto: pairwise, no size dispatch)";
    os << "\n";
    biggest = std::max(biggest, t.max_bytes);
  }
  if (biggest > 0 && s.pairwise_threshold > 0) {
    // Bytes per destination grow as the grid's volume: scaling every axis by f scales them by f^3.
    const double f = std::cbrt(double(s.pairwise_threshold) / double(biggest));
    os << "fft3d: auto's one-node pairwise/small-message dispatch switches at " << s.pairwise_threshold
       << " B per destination: for this P and decomposition, at about the grid "
       << std::lround(s.grid[0] * f) << "x" << std::lround(s.grid[1] * f) << "x"
       << std::lround(s.grid[2] * f) << " (this grid times " << std::setprecision(3) << f
       << std::defaultfloat << ")\n";
  }
  os << "fft3d: " << s.warmup << " warm-up + " << s.runs << " timed runs per algorithm, "
     << s.iterations << " forward + backward pairs each; algorithms in rotating order; a "
     << "transform's time is the slowest rank's (barrier before each)\n";
  if (std::any_of(s.overlap.begin(), s.overlap.end(), [](int k) { return k > 1; })) {
    os << "fft3d: overlap: every transpose in";
    for (std::size_t i = 0; i < s.overlap.size(); ++i)
      os << (i == 0 ? " " : i + 1 == s.overlap.size() ? " or " : ", ") << s.overlap[i];
    os << " pieces (NAME:overlap=K; PCOLL_Ialltoall/v per piece, at most one per row of the axis "
          "it keeps), the local FFTs before and after it run piece by piece; alltoall = time "
          "inside the start, test and wait calls\n";
  }
}

bool print_verification(std::ostream &os, const RunSetup &s) {
  const double t = s.tolerance;
  os << "verification (relative errors, tolerance " << t << "):\n"
     << "  ours:     plane-wave spikes " << check(s.spectrum_error, t) << ", round trip "
     << check(s.roundtrip_error, t) << "\n";
  bool ok = s.spectrum_error <= t && s.roundtrip_error <= t;
  if (s.fftw_roundtrip_error >= 0) {
    os << "  FFTW-MPI: plane-wave spikes " << check(s.fftw_spectrum_error, t) << ", round trip "
       << check(s.fftw_roundtrip_error, t) << "\n"
       << "  ours vs FFTW-MPI (forward, whole grid): "
       << (s.fftw_difference < 0 ? std::string("not compared (grid too large to assemble)")
                                 : check(s.fftw_difference, t))
       << "\n";
    ok = ok && s.fftw_spectrum_error <= t && s.fftw_roundtrip_error <= t && s.fftw_difference <= t;
  }
  return ok;
}

void print_run(std::ostream &os, const RunRecord &r, bool first) {
  if (first)
    os << std::left << std::setw(22) << "algorithm" << std::right << std::setw(5) << "run"
       << std::setw(11) << "ms/transf" << std::setw(9) << "fft" << std::setw(9) << "pack"
       << std::setw(9) << "alltoall" << std::setw(9) << "unpack" << std::setw(9) << "other"
       << "  bits  served\n";
  std::ostringstream run;
  run << (r.warmup ? "w" : "") << r.rep;
  const bool anchor = r.algorithm == kFftwMpi;
  os << std::left << std::setw(22) << r.algorithm << std::right << std::setw(5) << run.str()
     << std::fixed << std::setprecision(3) << std::setw(11) << 1e3 * r.time;
  if (anchor)
    os << std::setw(9) << "-" << std::setw(9) << "-" << std::setw(9) << "-" << std::setw(9) << "-"
       << std::setw(9) << "-";
  else
    os << std::setw(9) << 1e3 * r.fft << std::setw(9) << 1e3 * r.pack << std::setw(9)
       << 1e3 * r.alltoall << std::setw(9) << 1e3 * r.unpack << std::setw(9) << 1e3 * r.other;
  os << std::defaultfloat << "  "
     << (anchor      ? "-   "
         : r.bits_ok ? "same"
                     : "DIFF")
     << "  " << r.served << "\n";
}

bool print_summary(std::ostream &os, const RunSetup &s, const std::vector<RunRecord> &runs) {
  std::map<std::string, std::vector<const RunRecord *>> by_algo;
  for (const auto &r : runs)
    if (!r.warmup) by_algo[r.algorithm].push_back(&r);
  auto times = [&](const std::string &name) {
    std::vector<double> t;
    if (by_algo.count(name))
      for (const auto *r : by_algo[name]) t.push_back(r->time);
    return t;
  };
  const std::vector<double> vendor = times("vendor"), anchor = times(kFftwMpi);
  const double flops = s.flops();
  os << "\nsummary over timed runs (ms per transform, critical path, median +- MAD; split of the "
        "slowest rank, medians; GFlop/s = "
     << (s.transform == "r2c" ? "2.5" : "5") << " N log2 N / median time)\n"
     << std::left << std::setw(22) << "algorithm" << std::right << std::setw(18) << "ms/transform"
     << std::setw(9) << "fft" << std::setw(9) << "pack" << std::setw(9) << "alltoall"
     << std::setw(9) << "unpack" << std::setw(7) << "a2a%" << std::setw(9) << "GFlop/s"
     << "  " << std::left << std::setw(34) << "vs vendor" << std::setw(34) << "vs fftw"
     << "served\n"
     << std::right;
  for (const auto &name : s.algorithms) {
    const auto it = by_algo.find(name);
    if (it == by_algo.end()) continue;
    std::vector<double> t, f, p, a, u;
    for (const auto *r : it->second) {
      t.push_back(r->time);
      f.push_back(r->fft);
      p.push_back(r->pack);
      a.push_back(r->alltoall);
      u.push_back(r->unpack);
    }
    const apps::Spread st = apps::spread(t);
    std::ostringstream tot;
    tot << std::fixed << std::setprecision(3) << 1e3 * st.median << " +- " << 1e3 * st.mad;
    os << std::left << std::setw(22) << name << std::right << std::setw(18) << tot.str()
       << std::fixed << std::setprecision(3);
    if (name == kFftwMpi)
      os << std::setw(9) << "-" << std::setw(9) << "-" << std::setw(9) << "-" << std::setw(9) << "-"
         << std::setw(7) << "-";
    else
      os << std::setw(9) << 1e3 * median(f) << std::setw(9) << 1e3 * median(p) << std::setw(9)
         << 1e3 * median(a) << std::setw(9) << 1e3 * median(u) << std::setprecision(1)
         << std::setw(6) << 100.0 * median(a) / st.median << "%";
    // The shared statistic (apps/common/speedup.hpp): ratio of medians, 95% bootstrap interval,
    // "within noise" when it contains 1.0; "-" without a baseline (no vendor run, no FFTW-MPI in
    // SMPI builds), never 0x.
    auto vs = [&](const std::vector<double> &base, const char *base_name) {
      if (name == base_name) return std::string("baseline");
      return base.empty() ? std::string("-") : apps::format_speedup(apps::speedup_ci(base, t));
    };
    os << std::setprecision(2) << std::setw(9) << flops / st.median * 1e-9 << "  " << std::left
       << std::setw(34) << vs(vendor, "vendor") << std::setw(34) << vs(anchor, kFftwMpi)
       << std::right << std::defaultfloat << it->second.front()->served << "\n";
  }
  os << "vs X = median time of X / this one (> 1: this one is faster), 95% percentile-bootstrap "
        "interval over the runs\n";
  bool ok = true;
  for (const auto &r : runs) ok = ok && r.bits_ok;
  if (ok)
    os << "results: every run of every all-to-all algorithm gave bit-identical forward and "
          "backward transforms\n";
  else
    os << "results: WRONG: some runs differ bitwise from the verified transform (bits column)\n";
  return ok;
}

void write_csv(const std::string &path, const RunSetup &s, const std::vector<RunRecord> &runs) {
  std::ofstream out(path);
  if (!out) throw std::runtime_error("cannot write " + path);
  out << "deck,transform,ranks,threads,n0,n1,n2,decomp,p0,p1,bytes_per_dest_max,algorithm,served,"
         "run,"
         "warmup,time_s,fft_s,pack_s,alltoall_s,unpack_s,other_s,fastest_s,slowest_s,gflops,"
         "bits_ok,overlap\n";
  std::int64_t bytes = 0;
  for (const auto &t : s.transposes) bytes = std::max(bytes, t.max_bytes);
  out << std::setprecision(17);
  for (const auto &r : runs)
    out << s.deck << ',' << s.transform << ',' << s.ranks << ',' << s.threads << ',' << s.grid[0]
        << ',' << s.grid[1] << ',' << s.grid[2] << ',' << s.decomp << ',' << s.p0 << ',' << s.p1
        << ',' << bytes << ',' << r.algorithm << ',' << r.served << ',' << r.rep << ','
        << (r.warmup ? 1 : 0) << ',' << r.time << ',' << r.fft << ',' << r.pack << ',' << r.alltoall
        << ',' << r.unpack << ',' << r.other << ',' << r.fastest << ',' << r.slowest << ','
        << s.flops() / r.time * 1e-9 << ',' << (r.bits_ok ? 1 : 0) << ',' << r.overlap << '\n';
}

}  // namespace pcoll::fft3d
