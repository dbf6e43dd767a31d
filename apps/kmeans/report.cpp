// Text, CSV and HDF5 reports of the k-means driver (rank 0 only).
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

#include "../common/phase_record.hpp"
#include "../common/speedup.hpp"

#ifdef PCOLL_KMEANS_HAVE_HDF5
#include <hdf5.h>

#include "../common/h5_attrs.hpp"
#endif

namespace pcoll::kmeans {

namespace {

std::string hex(std::uint64_t v) {
  std::ostringstream os;
  os << std::hex << std::setw(16) << std::setfill('0') << v;
  return os.str();
}

std::string served(const RunRecord &r) {
  if (r.served_counts == r.served_sums && r.served_sums == r.served_conv) return r.served_sums;
  return r.served_counts + "/" + r.served_sums + "/" + r.served_conv;
}

}  // namespace

const std::vector<std::string> &phase_names() {
  static const std::vector<std::string> names = {"compute", "ar_counts", "ar_sums", "ar_conv"};
  return names;
}

void print_header(std::ostream &os, const RunSetup &s) {
  os << "kmeans: deck " << s.deck << " | P = " << s.ranks << " ranks x " << s.threads
     << " OpenMP threads | D = " << s.dim << ", K = " << s.clusters << " | N = " << s.points
     << " points (" << s.points / s.ranks << (s.points % s.ranks ? "+" : "") << " per rank)\n"
     << "kmeans: data: " << s.origin << "\n"
     << "kmeans: " << s.max_iterations << " Lloyd iterations per run"
     << (s.stop_when_converged ? " at most (stop when converged)" : " (fixed)")
     << "; per iteration "
     << "PCOLL_Allreduce of " << s.clusters << " ints, "
     << static_cast<long long>(s.clusters) * s.dim << " doubles ("
     << static_cast<long long>(s.clusters) * s.dim * 8 / 1024 << " KiB), 1 int\n"
     << "kmeans: " << s.warmup << " warm-up + " << s.runs << " timed runs per algorithm, "
     << "algorithms in a balanced rotating order (Williams design); times are the critical path "
        "(slowest rank)\n";
}

void print_run(std::ostream &os, const RunRecord &r, bool first) {
  if (first)
    os << std::left << std::setw(20) << "algorithm" << std::right << std::setw(5) << "run"
       << std::setw(6) << "iters" << std::setw(15) << "inertia" << std::setw(10) << "total_s"
       << std::setw(10) << "compute" << std::setw(10) << "ar_counts" << std::setw(10) << "ar_sums"
       << std::setw(10) << "ar_conv" << std::setw(10) << "other"
       << "  digest\n";
  std::ostringstream run;
  run << (r.warmup ? "w" : "") << r.rep;
  os << std::left << std::setw(20) << r.algorithm << std::right << std::setw(5) << run.str()
     << std::setw(6) << r.iterations << std::setw(15) << std::setprecision(8) << r.inertia
     << std::fixed << std::setprecision(4) << std::setw(10) << r.total << std::setw(10) << r.compute
     << std::setw(10) << r.ar_counts << std::setw(10) << r.ar_sums << std::setw(10) << r.ar_conv
     << std::setw(10) << r.other << std::defaultfloat << "  " << hex(r.digest) << "\n";
}

bool print_summary(std::ostream &os, const RunSetup &s, const std::vector<RunRecord> &runs) {
  std::map<std::string, std::vector<const RunRecord *>> by_algo;
  for (const auto &r : runs)
    if (!r.warmup) by_algo[r.algorithm].push_back(&r);
  std::string base = s.algorithms.empty() ? "" : s.algorithms.front();
  if (by_algo.count("vendor")) base = "vendor";
  std::vector<double> base_total;
  if (by_algo.count(base))
    for (const auto *r : by_algo[base]) base_total.push_back(r->total);
  os << "\nsummary over timed runs (seconds, critical path = slowest rank; iteration phase: "
        "median +- MAD and p10..p90 over the runs; parts: medians; allreduce = counts + sums + "
        "conv)\n"
     << std::left << std::setw(20) << "algorithm" << std::right << std::setw(20)
     << "iteration phase" << std::setw(17) << "p10..p90" << std::setw(9) << "compute"
     << std::setw(10) << "ar_counts" << std::setw(9) << "ar_sums" << std::setw(9) << "ar_conv"
     << std::setw(10) << "allreduce" << std::setw(7) << "share" << std::setw(9) << "speedup"
     << std::setw(14) << "95% interval" << std::setw(7) << "+-"
     << "  " << std::left << std::setw(13) << "verdict"
     << "served (counts/sums/conv)\n"
     << std::right;
  for (const auto &name : s.algorithms) {
    const auto it = by_algo.find(name);
    if (it == by_algo.end()) continue;
    std::vector<double> total, compute, c, m, v, ar;
    for (const auto *r : it->second) {
      total.push_back(r->total);
      compute.push_back(r->compute);
      c.push_back(r->ar_counts);
      m.push_back(r->ar_sums);
      v.push_back(r->ar_conv);
      ar.push_back(r->ar_counts + r->ar_sums + r->ar_conv);
    }
    const apps::Spread st = apps::spread(total);
    const double ar_med = apps::median(ar);
    std::ostringstream tot, range, ratio, half;
    tot << std::fixed << std::setprecision(4) << st.median << " +- " << st.mad;
    range << std::fixed << std::setprecision(4) << st.p10 << ".." << st.p90;
    std::string interval = "-", verdict = "baseline";
    if (name != base) {
      const apps::Speedup sp = apps::speedup_ci(base_total, total);
      ratio << std::fixed << std::setprecision(2) << sp.ratio << "x";
      interval = apps::format_interval(sp);
      verdict = sp.verdict;
      if (sp.has_interval()) half << std::fixed << std::setprecision(1) << 100 * sp.width() << "%";
    }
    os << std::left << std::setw(20) << name << std::right << std::setw(20) << tot.str()
       << std::setw(17) << range.str() << std::fixed << std::setprecision(4) << std::setw(9)
       << apps::median(compute) << std::setw(10) << apps::median(c) << std::setw(9)
       << apps::median(m) << std::setw(9) << apps::median(v) << std::setw(10) << ar_med
       << std::setprecision(1) << std::setw(6) << 100.0 * ar_med / st.median << "%"
       << std::defaultfloat << std::setw(9) << (ratio.str().empty() ? "-" : ratio.str())
       << std::setw(14) << interval << std::setw(7) << (half.str().empty() ? "-" : half.str())
       << "  " << std::left << std::setw(13) << verdict << std::right << served(*it->second.front())
       << "\n";
  }
  if (!base.empty())
    os << "speedup = median iteration phase of " << base << " / this one; 95% interval: "
       << "percentile bootstrap over the runs (" << apps::kSpeedupResamples
       << " resamples, fixed seed), +- its half-width; 'within noise' when it contains 1.0, "
          "'too few runs' below "
       << apps::kSpeedupMinRuns << " runs\n";

  // Results: every run (warm-ups too) must agree bitwise when the sums are exact.
  bool ok = true;
  if (!runs.empty()) {
    const auto &ref = runs.front();
    bool same = true;
    double worst = 0;
    for (const auto &r : runs) {
      same = same && r.digest == ref.digest && r.iterations == ref.iterations;
      worst = std::max(worst, std::fabs(r.inertia - ref.inertia) / std::fabs(ref.inertia));
    }
    if (same) {
      os << "results: every run of every algorithm gave bit-identical centroids and labels "
            "(digest "
         << hex(ref.digest) << ", " << ref.iterations << " iterations, inertia "
         << std::setprecision(12) << ref.inertia << std::defaultfloat << ")\n";
    } else if (s.exact_sums || s.reproducible) {
      os << "results: WRONG: runs differ although every sum is "
         << (s.exact_sums ? "exact" : "reproducible") << " (see the digest column)\n";
      ok = false;
    } else {
      os << "results: runs differ in the last bits (sums rounded in algorithm-dependent order); "
            "max relative inertia difference "
         << worst << "\n";
    }
  }
  return ok;
}

void write_csv(const std::string &path, const RunSetup &s, const std::vector<RunRecord> &runs) {
  std::ofstream out(path);
  if (!out) throw std::runtime_error("cannot write " + path);
  out << "deck,ranks,threads,dim,clusters,points,exact_sums,algorithm,served_counts,served_sums,"
         "served_conv,run,warmup,iterations,converged,inertia,digest,total_s,compute_s,"
         "ar_counts_s,ar_sums_s,ar_conv_s,other_s,compute_max_s,allreduce_max_s,position\n";
  out << std::setprecision(17);
  for (const auto &r : runs)
    out << s.deck << ',' << s.ranks << ',' << s.threads << ',' << s.dim << ',' << s.clusters << ','
        << s.points << ',' << (s.exact_sums ? 1 : 0) << ',' << r.algorithm << ',' << r.served_counts
        << ',' << r.served_sums << ',' << r.served_conv << ',' << r.rep << ',' << (r.warmup ? 1 : 0)
        << ',' << r.iterations << ',' << (r.converged ? 1 : 0) << ',' << r.inertia << ','
        << hex(r.digest) << ',' << r.total << ',' << r.compute << ',' << r.ar_counts << ','
        << r.ar_sums << ',' << r.ar_conv << ',' << r.other << ',' << r.compute_max << ','
        << r.allreduce_max << ',' << r.position << '\n';
}

#ifdef PCOLL_KMEANS_HAVE_HDF5

using apps::attr_num;
using apps::attr_string;
using apps::dataset_f64;

void write_results_h5(const std::string &path, const RunSetup &s,
                      const std::vector<RunRecord> &runs) {
  const hid_t f = H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  if (f < 0) throw std::runtime_error("HDF5: cannot create " + path);
  attr_string(f, "application", "pcoll kmeans");
  attr_string(f, "pcoll_version", PCOLL_Version());
  attr_string(f, "deck", s.deck);
  attr_string(f, "data", s.origin);
  attr_string(f, "command_line", s.command_line);
  attr_num(f, "ranks", s.ranks);
  attr_num(f, "threads", s.threads);
  attr_num(f, "dim", s.dim);
  attr_num(f, "clusters", s.clusters);
  attr_num(f, "points", s.points);
  attr_num(f, "exact_sums", s.exact_sums ? 1 : 0);
  attr_string(f, "phases", apps::joined_names(phase_names()));
  const hid_t all = H5Gcreate2(f, "runs", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  for (std::size_t i = 0; i < runs.size(); ++i) {
    const RunRecord &r = runs[i];
    char name[32];
    std::snprintf(name, sizeof name, "%04zu", i);
    const hid_t g = H5Gcreate2(all, name, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    attr_string(g, "algorithm", r.algorithm);
    attr_string(g, "served_counts", r.served_counts);
    attr_string(g, "served_sums", r.served_sums);
    attr_string(g, "served_conv", r.served_conv);
    attr_num(g, "rep", r.rep);
    attr_num(g, "position", r.position);
    attr_num(g, "warmup", r.warmup ? 1 : 0);
    attr_num(g, "iterations", r.iterations);
    attr_num(g, "converged", r.converged ? 1 : 0);
    attr_num(g, "inertia", r.inertia);
    attr_string(g, "digest", hex(r.digest));
    attr_num(g, "critical_rank", r.critical_rank);
    attr_num(g, "total_s", r.total);
    attr_num(g, "compute_s", r.compute);
    attr_num(g, "ar_counts_s", r.ar_counts);
    attr_num(g, "ar_sums_s", r.ar_sums);
    attr_num(g, "ar_conv_s", r.ar_conv);
    attr_num(g, "other_s", r.other);
    apps::dataset_phase_times(g, r.per_iteration, r.iterations, s.ranks, phase_names().size());
    const hsize_t dims1[1] = {static_cast<hsize_t>(s.ranks)};
    dataset_f64(g, "wall", r.wall, 1, dims1);
    H5Gclose(g);
  }
  H5Gclose(all);
  H5Fclose(f);
}

#else

void write_results_h5(const std::string &, const RunSetup &, const std::vector<RunRecord> &) {
  throw std::runtime_error("--output needs HDF5; kmeans was built without it");
}

#endif

}  // namespace pcoll::kmeans
