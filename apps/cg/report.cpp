// Text, CSV and HDF5 reports of the CG driver (rank 0 only).
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

#ifdef PCOLL_CG_HAVE_HDF5
#include <hdf5.h>
#endif

namespace pcoll::cg {

namespace {

struct Stats {
  double mean = 0, std = 0;
};

Stats stats(const std::vector<double> &v) {
  Stats s;
  if (v.empty()) return s;
  for (double x : v) s.mean += x;
  s.mean /= static_cast<double>(v.size());
  if (v.size() > 1) {
    for (double x : v) s.std += (x - s.mean) * (x - s.mean);
    s.std = std::sqrt(s.std / static_cast<double>(v.size() - 1));
  }
  return s;
}

std::string hex(std::uint64_t v) {
  std::ostringstream os;
  os << std::hex << std::setw(16) << std::setfill('0') << v;
  return os.str();
}

double allreduce_time(const RunSetup &s, const RunRecord &r) {
  double t = 0;
  for (std::size_t f = 0; f < s.phases.size(); ++f)
    if (is_allreduce(s.phases[f])) t += r.phase[f];
  return t;
}

}  // namespace

bool is_allreduce(const std::string &phase) {
  return phase.rfind("dot", 0) == 0;
}

void print_header(std::ostream &os, const RunSetup &s) {
  os << "cg: deck " << s.deck << " | P = " << s.ranks << " ranks (" << s.dims[0] << "x" << s.dims[1]
     << "x" << s.dims[2] << ") x " << s.threads << " OpenMP threads | grid " << s.global[0] << "x"
     << s.global[1] << "x" << s.global[2] << " (" << s.global[0] / s.dims[0] << "x"
     << s.global[1] / s.dims[1] << "x" << s.global[2] / s.dims[2] << "+ per rank)\n"
     << "cg: solver " << s.solver
     << (s.solver == "pipecg" ? (s.overlap ? " (PCOLL_Iallreduce overlapping the stencil)"
                                           : " (blocking PCOLL_Allreduce, no overlap)")
                              : "")
     << ", pc " << s.pc << ", reduction " << s.reduction << ", tol " << s.tol << ", at most "
     << s.max_iterations << " iterations\n"
     << "cg: " << s.warmup << " warm-up + " << s.runs
     << " timed runs per algorithm, algorithms in rotating order; times are the critical path "
        "(slowest rank)\n";
}

void print_run(std::ostream &os, const RunSetup &s, const RunRecord &r, bool first) {
  if (first) {
    os << std::left << std::setw(20) << "algorithm" << std::right << std::setw(5) << "run"
       << std::setw(6) << "iters" << std::setw(11) << "rel_res" << std::setw(11) << "err_max"
       << std::setw(10) << "total_s" << std::setw(9) << "us/iter";
    for (const auto &p : s.phases) os << std::setw(std::max<int>(9, int(p.size()) + 1)) << p;
    os << "  digest\n";
  }
  std::ostringstream run;
  run << (r.warmup ? "w" : "") << r.rep;
  os << std::left << std::setw(20) << r.algorithm << std::right << std::setw(5) << run.str()
     << std::setw(6) << r.iterations << std::scientific << std::setprecision(3) << std::setw(11)
     << r.rel_residual << std::setw(11) << r.err_max << std::fixed << std::setprecision(4)
     << std::setw(10) << r.total << std::setprecision(1) << std::setw(9) << 1e6 * r.per_iter();
  for (std::size_t f = 0; f < s.phases.size(); ++f)
    os << std::setw(std::max<int>(9, int(s.phases[f].size()) + 1))
       << (r.iterations ? 1e6 * r.phase[f] / r.iterations : 0.0);
  os << std::defaultfloat << "  " << hex(r.digest) << "\n";
}

bool print_summary(std::ostream &os, const RunSetup &s, const std::vector<RunRecord> &runs) {
  std::map<std::string, std::vector<const RunRecord *>> by_algo;
  for (const auto &r : runs)
    if (!r.warmup) by_algo[r.algorithm].push_back(&r);
  std::string base = s.algorithms.empty() ? "" : s.algorithms.front();
  if (by_algo.count("vendor")) base = "vendor";
  auto per_iter = [](const std::vector<const RunRecord *> &rs) {
    std::vector<double> t;
    for (const auto *r : rs) t.push_back(r->per_iter());
    return stats(t);
  };
  const double base_mean = by_algo.count(base) ? per_iter(by_algo[base]).mean : 0;
  os << "\nsummary over timed runs (microseconds per iteration, critical path, mean +- sample "
        "std; allreduce = the dot_* phases)\n"
     << std::left << std::setw(20) << "algorithm" << std::right << std::setw(6) << "iters"
     << std::setw(18) << "us/iteration";
  for (const auto &p : s.phases) os << std::setw(std::max<int>(9, int(p.size()) + 1)) << p;
  os << std::setw(8) << "share" << std::setw(9) << "speedup"
     << "  served\n";
  for (const auto &name : s.algorithms) {
    const auto it = by_algo.find(name);
    if (it == by_algo.end()) continue;
    const Stats st = per_iter(it->second);
    std::vector<double> phase(s.phases.size(), 0.0);
    double ar = 0, total = 0;
    for (const auto *r : it->second) {
      for (std::size_t f = 0; f < phase.size(); ++f)
        phase[f] += 1e6 * r->phase[f] / std::max(1, r->iterations) / it->second.size();
      ar += allreduce_time(s, *r);
      total += r->total;
    }
    std::ostringstream tot;
    tot << std::fixed << std::setprecision(1) << 1e6 * st.mean << " +- " << 1e6 * st.std;
    os << std::left << std::setw(20) << name << std::right << std::setw(6)
       << it->second.front()->iterations << std::setw(18) << tot.str() << std::fixed
       << std::setprecision(1);
    for (std::size_t f = 0; f < phase.size(); ++f)
      os << std::setw(std::max<int>(9, int(s.phases[f].size()) + 1)) << phase[f];
    os << std::setw(7) << 100.0 * ar / total << "%" << std::setprecision(2) << std::setw(8)
       << (base_mean > 0 ? base_mean / st.mean : 0.0) << "x" << std::defaultfloat << "  "
       << it->second.front()->served << "\n";
  }
  if (!base.empty()) os << "speedup = mean time per iteration of " << base << " / this one\n";

  bool ok = true;
  if (runs.empty()) return ok;
  const RunRecord &ref = runs.front();
  bool same = true;
  double worst = 0;
  for (const auto &r : runs) {
    same = same && r.digest == ref.digest && r.iterations == ref.iterations;
    worst = std::max(worst, std::fabs(r.err_max - ref.err_max));
  }
  os << std::setprecision(6) << "results: " << ref.iterations << " iterations, relative residual "
     << ref.rel_residual << " (true " << ref.true_rel_residual << "), error against the exact u: "
     << "max " << ref.err_max << ", L2 " << ref.err_l2
     << (ref.converged ? "" : "; NOT CONVERGED (iteration limit or breakdown)") << "\n";
  if (same) {
    os << "results: every run of every algorithm gave bit-identical iterates (digest "
       << hex(ref.digest) << ")\n";
  } else if (s.reduction == "reproducible") {
    os << "results: WRONG: runs differ although the reduction is reproducible (see the digest "
          "column)\n";
    ok = false;
  } else {
    os << "results: runs differ in the last bits (reduction = sum adds the P partial sums in the "
          "algorithm's order); largest difference of the max error "
       << worst << "\n";
  }
  return ok;
}

void write_csv(const std::string &path, const RunSetup &s, const std::vector<RunRecord> &runs) {
  std::ofstream out(path);
  if (!out) throw std::runtime_error("cannot write " + path);
  out << "deck,solver,pc,reduction,overlap,ranks,threads,nx,ny,nz,px,py,pz,algorithm,served,run,"
         "warmup,iterations,converged,rel_residual,true_rel_residual,err_max,err_l2,digest,"
         "total_s,per_iteration_s,other_s,allreduce_s";
  for (const auto &p : s.phases) out << ',' << p << "_s";
  out << '\n' << std::setprecision(17);
  for (const auto &r : runs) {
    out << s.deck << ',' << s.solver << ',' << s.pc << ',' << s.reduction << ','
        << (s.overlap ? 1 : 0) << ',' << s.ranks << ',' << s.threads << ',' << s.global[0] << ','
        << s.global[1] << ',' << s.global[2] << ',' << s.dims[0] << ',' << s.dims[1] << ','
        << s.dims[2] << ',' << r.algorithm << ',' << r.served << ',' << r.rep << ','
        << (r.warmup ? 1 : 0) << ',' << r.iterations << ',' << (r.converged ? 1 : 0) << ','
        << r.rel_residual << ',' << r.true_rel_residual << ',' << r.err_max << ',' << r.err_l2
        << ',' << hex(r.digest) << ',' << r.total << ',' << r.per_iter() << ',' << r.other << ','
        << allreduce_time(s, r);
    for (double t : r.phase) out << ',' << t;
    out << '\n';
  }
}

void print_refinement(std::ostream &os, const std::vector<RefinementRow> &rows) {
  os << "\nrefinement (h halved each row; ratio = previous error / this one, 4 for second order)\n"
     << std::setw(16) << "grid" << std::setw(12) << "h" << std::setw(7) << "iters" << std::setw(13)
     << "err_max" << std::setw(8) << "ratio" << std::setw(13) << "err_L2" << std::setw(8)
     << "ratio\n";
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const RefinementRow &r = rows[i];
    std::ostringstream grid, rmax, rl2;
    grid << r.n[0] << "x" << r.n[1] << "x" << r.n[2];
    rmax << std::fixed << std::setprecision(2);
    rl2 << std::fixed << std::setprecision(2);
    if (i == 0) {
      rmax << "-";
      rl2 << "-";
    } else {
      rmax << rows[i - 1].err_max / r.err_max;
      rl2 << rows[i - 1].err_l2 / r.err_l2;
    }
    os << std::setw(16) << grid.str() << std::setw(12) << std::setprecision(5) << r.h
       << std::setw(7) << r.iterations << std::scientific << std::setprecision(4) << std::setw(13)
       << r.err_max << std::setw(8) << rmax.str() << std::setw(13) << r.err_l2 << std::setw(8)
       << rl2.str() << std::defaultfloat << "\n";
  }
}

}  // namespace pcoll::cg
