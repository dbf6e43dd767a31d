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

#include "layout.hpp"

#ifdef PCOLL_FFT3D_HAVE_HDF5
#include <hdf5.h>
#endif

namespace pcoll::fft3d {

namespace {

struct Stats {
  double mean = 0, std = 0;
};

Stats stats(const std::vector<double> &v) {
  Stats s;
  if (v.empty()) return s;
  for (double x : v) s.mean += x;
  s.mean /= double(v.size());
  if (v.size() > 1) {
    for (double x : v) s.std += (x - s.mean) * (x - s.mean);
    s.std = std::sqrt(s.std / double(v.size() - 1));
  }
  return s;
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
      os << " (auto: " << (t.max_bytes >= s.pairwise_threshold ? "pairwise" : "routed")
         << ", pairwise_threshold " << s.pairwise_threshold << " B)";
    else
      os << " (alltoallv auto: pairwise, no size dispatch)";
    os << "\n";
    biggest = std::max(biggest, t.max_bytes);
  }
  if (biggest > 0 && s.pairwise_threshold > 0) {
    // Bytes per destination grow as the grid's volume: scaling every axis by f scales them by f^3.
    const double f = std::cbrt(double(s.pairwise_threshold) / double(biggest));
    os << "fft3d: auto's pairwise/small-message dispatch switches at " << s.pairwise_threshold
       << " B per destination: for this P and decomposition, at about the grid "
       << std::lround(s.grid[0] * f) << "x" << std::lround(s.grid[1] * f) << "x"
       << std::lround(s.grid[2] * f) << " (this grid times " << std::setprecision(3) << f
       << std::defaultfloat << ")\n";
  }
  os << "fft3d: " << s.warmup << " warm-up + " << s.runs << " timed runs per algorithm, "
     << s.iterations << " forward + backward pairs each; algorithms in rotating order; a "
     << "transform's time is the slowest rank's (barrier before each)\n";
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
    os << std::left << std::setw(14) << "algorithm" << std::right << std::setw(5) << "run"
       << std::setw(11) << "ms/transf" << std::setw(9) << "fft" << std::setw(9) << "pack"
       << std::setw(9) << "alltoall" << std::setw(9) << "unpack" << std::setw(9) << "other"
       << "  bits  served\n";
  std::ostringstream run;
  run << (r.warmup ? "w" : "") << r.rep;
  const bool anchor = r.algorithm == kFftwMpi;
  os << std::left << std::setw(14) << r.algorithm << std::right << std::setw(5) << run.str()
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
  auto mean_time = [&](const std::string &name) {
    std::vector<double> t;
    if (by_algo.count(name))
      for (const auto *r : by_algo[name]) t.push_back(r->time);
    return stats(t).mean;
  };
  const double vendor = mean_time("vendor"), anchor = mean_time(kFftwMpi);
  const double flops = s.flops();
  os << "\nsummary over timed runs (ms per transform, critical path, mean +- sample std; split "
        "of the slowest rank; GFlop/s = 5 N log2 N / time)\n"
     << std::left << std::setw(14) << "algorithm" << std::right << std::setw(18) << "ms/transform"
     << std::setw(9) << "fft" << std::setw(9) << "pack" << std::setw(9) << "alltoall"
     << std::setw(9) << "unpack" << std::setw(7) << "a2a%" << std::setw(9) << "GFlop/s"
     << std::setw(10) << "vs vendor" << std::setw(9) << "vs fftw"
     << "  served\n";
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
    const Stats st = stats(t);
    std::ostringstream tot;
    tot << std::fixed << std::setprecision(3) << 1e3 * st.mean << " +- " << 1e3 * st.std;
    os << std::left << std::setw(14) << name << std::right << std::setw(18) << tot.str()
       << std::fixed << std::setprecision(3);
    if (name == kFftwMpi)
      os << std::setw(9) << "-" << std::setw(9) << "-" << std::setw(9) << "-" << std::setw(9) << "-"
         << std::setw(7) << "-";
    else
      os << std::setw(9) << 1e3 * stats(f).mean << std::setw(9) << 1e3 * stats(p).mean
         << std::setw(9) << 1e3 * stats(a).mean << std::setw(9) << 1e3 * stats(u).mean
         << std::setprecision(1) << std::setw(6) << 100.0 * stats(a).mean / st.mean << "%";
    // A missing baseline (no vendor run, no FFTW-MPI in SMPI builds) is "-", never 0x.
    auto ratio = [&](double base, int width) {
      std::ostringstream r;
      if (base > 0)
        r << std::fixed << std::setprecision(2) << base / st.mean << "x";
      else
        r << "-";
      std::ostringstream padded;
      padded << std::setw(width) << r.str();
      return padded.str();
    };
    os << std::setprecision(2) << std::setw(9) << flops / st.mean * 1e-9 << ratio(vendor, 10)
       << ratio(anchor, 9) << std::defaultfloat << "  " << it->second.front()->served << "\n";
  }
  os << "vs X = mean time of X / this one (> 1: this one is faster); scripts/reproduce-fft.sh "
        "gives bootstrap intervals\n";
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
         "bits_ok\n";
  std::int64_t bytes = 0;
  for (const auto &t : s.transposes) bytes = std::max(bytes, t.max_bytes);
  out << std::setprecision(17);
  for (const auto &r : runs)
    out << s.deck << ',' << s.transform << ',' << s.ranks << ',' << s.threads << ',' << s.grid[0]
        << ',' << s.grid[1] << ',' << s.grid[2] << ',' << s.decomp << ',' << s.p0 << ',' << s.p1
        << ',' << bytes << ',' << r.algorithm << ',' << r.served << ',' << r.rep << ','
        << (r.warmup ? 1 : 0) << ',' << r.time << ',' << r.fft << ',' << r.pack << ',' << r.alltoall
        << ',' << r.unpack << ',' << r.other << ',' << r.fastest << ',' << r.slowest << ','
        << s.flops() / r.time * 1e-9 << ',' << (r.bits_ok ? 1 : 0) << '\n';
}

#ifdef PCOLL_FFT3D_HAVE_HDF5

namespace {

void attr_string(hid_t obj, const char *name, const std::string &value) {
  const hid_t type = H5Tcopy(H5T_C_S1);
  H5Tset_size(type, std::max<std::size_t>(1, value.size()));
  const hid_t space = H5Screate(H5S_SCALAR);
  const hid_t a = H5Acreate2(obj, name, type, space, H5P_DEFAULT, H5P_DEFAULT);
  H5Awrite(a, type, value.empty() ? " " : value.c_str());
  H5Aclose(a);
  H5Sclose(space);
  H5Tclose(type);
}

void attr_num(hid_t obj, const char *name, double value) {
  const hid_t space = H5Screate(H5S_SCALAR);
  const hid_t a = H5Acreate2(obj, name, H5T_IEEE_F64LE, space, H5P_DEFAULT, H5P_DEFAULT);
  H5Awrite(a, H5T_NATIVE_DOUBLE, &value);
  H5Aclose(a);
  H5Sclose(space);
}

}  // namespace

void write_results_h5(const std::string &path, const RunSetup &s,
                      const std::vector<RunRecord> &runs) {
  const hid_t f = H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  if (f < 0) throw std::runtime_error("HDF5: cannot create " + path);
  attr_string(f, "application", "pcoll fft3d");
  attr_string(f, "pcoll_version", PCOLL_Version());
  attr_string(f, "deck", s.deck);
  attr_string(f, "command_line", s.command_line);
  attr_string(f, "decomp", s.decomp);
  attr_string(f, "field", s.field);
  attr_string(f, "transform", s.transform);
  attr_string(f, "planner", s.planner);
  attr_num(f, "ranks", s.ranks);
  attr_num(f, "threads", s.threads);
  attr_num(f, "n0", s.grid[0]);
  attr_num(f, "n1", s.grid[1]);
  attr_num(f, "n2", s.grid[2]);
  attr_num(f, "p0", s.p0);
  attr_num(f, "p1", s.p1);
  attr_num(f, "pairwise_threshold", double(s.pairwise_threshold));
  attr_num(f, "flops_per_transform", s.flops());
  attr_num(f, "spectrum_error", s.spectrum_error);
  attr_num(f, "roundtrip_error", s.roundtrip_error);
  attr_num(f, "fftw_difference", s.fftw_difference);
  attr_string(f, "split", "wall,fft,pack,alltoall,unpack");
  std::string tinfo;
  for (const auto &t : s.transposes)
    tinfo += (tinfo.empty() ? "" : ";") + t.where + ":" + t.collective + ":" +
             std::to_string(t.peers) + ":" + std::to_string(t.min_bytes) + ".." +
             std::to_string(t.max_bytes);
  attr_string(f, "transposes", tinfo);  // where:collective:peers:bytes per destination
  const hid_t all = H5Gcreate2(f, "runs", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  for (std::size_t i = 0; i < runs.size(); ++i) {
    const RunRecord &r = runs[i];
    char name[32];
    std::snprintf(name, sizeof name, "%04zu", i);
    const hid_t g = H5Gcreate2(all, name, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    attr_string(g, "algorithm", r.algorithm);
    attr_string(g, "served", r.served);
    attr_num(g, "rep", r.rep);
    attr_num(g, "warmup", r.warmup ? 1 : 0);
    attr_num(g, "bits_ok", r.bits_ok ? 1 : 0);
    for (const auto &[key, v] : {std::pair{"time_s", r.time},
                                 {"fft_s", r.fft},
                                 {"pack_s", r.pack},
                                 {"alltoall_s", r.alltoall},
                                 {"unpack_s", r.unpack},
                                 {"other_s", r.other}})
      attr_num(g, key, v);
    // split[transform][rank][wall, fft, pack, alltoall, unpack], seconds; transforms alternate
    // forward, backward.
    const hsize_t dims[3] = {r.split.size() / (std::size_t(s.ranks) * kSplit),
                             static_cast<hsize_t>(s.ranks), kSplit};
    const hid_t space = H5Screate_simple(3, dims, nullptr);
    const hid_t d =
        H5Dcreate2(g, "split", H5T_IEEE_F64LE, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    if (d < 0) throw std::runtime_error("HDF5: cannot create dataset split in " + path);
    if (!r.split.empty())
      H5Dwrite(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, r.split.data());
    H5Dclose(d);
    H5Sclose(space);
    H5Gclose(g);
  }
  H5Gclose(all);
  H5Fclose(f);
}

#else

void write_results_h5(const std::string &, const RunSetup &, const std::vector<RunRecord> &) {
  throw std::runtime_error("--output needs HDF5; fft3d was built without it");
}

#endif

}  // namespace pcoll::fft3d
