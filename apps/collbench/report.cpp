#include "report.hpp"

#include <map>
#include <utility>

#include "../common/speedup.hpp"
#include "registry.hpp"

namespace collbench {

namespace {

// vs_vendor with its bootstrap interval over the trials: the vendor's per-call times of the same
// size against this row's (apps/common/speedup.hpp, the statistic of scripts/lib/speedup.py).
// verdict "baseline" for the vendor's own row, "" when the run has no vendor.
struct VsVendor {
  pcoll::apps::Speedup s;
  std::string verdict;
};

std::vector<VsVendor> vs_vendor(const std::vector<Result> &results) {
  std::vector<VsVendor> out(results.size());
  // The vendor's resamples are drawn once per size, not once per algorithm.
  std::map<std::pair<std::size_t, std::size_t>, pcoll::apps::SpeedupBaseline> vendor;
  for (const Result &v : results)
    if (v.algo == "vendor") vendor.emplace(std::pair{v.bytes, v.count}, v.times);
  for (std::size_t i = 0; i < results.size(); ++i) {
    const Result &r = results[i];
    if (r.algo == "vendor") {
      out[i].verdict = "baseline";
      continue;
    }
    const auto it = vendor.find({r.bytes, r.count});
    if (it == vendor.end()) continue;  // no vendor in this run
    out[i].s = it->second.against(r.times);
    out[i].verdict = out[i].s.verdict;
  }
  return out;
}

bool takes_op(const std::string &coll) {
  const pcoll::CollectiveInfo *c = pcoll::find_collective(coll);
  return c != nullptr && c->takes_op;
}

}  // namespace

void print_header(std::FILE *f, const Options &o, int P, double alpha, double beta,
                  const char *model_source) {
  std::fprintf(f,
               "# collbench %s, P=%d, %s%s%s, %d trials after %d warm-ups%s%s, time = max over "
               "ranks per call, algorithms in randomized order (seed %u)\n",
               o.coll.c_str(), P, o.type.c_str(), takes_op(o.coll) ? " sum" : "",
               o.layout == "strided" ? ", strided (a gap after every element: packed by pcoll)"
                                     : "",
               o.trials, o.warmup, o.in_place ? ", in place" : "", o.cold ? ", cache-cold" : "",
               o.seed);
  std::fprintf(f, "# model: alpha=%.3g s, beta=%.3g s/B (%s); bw in GB/s (1e9 B/s)\n", alpha, beta,
               model_source);
  if (o.skew_rank >= 0)
    std::fprintf(f, "# arrival skew: rank %d waits %.0f us after the barrier\n", o.skew_rank,
                 o.skew_us);
}

void print_table(std::FILE *f, const std::vector<Result> &results, int P) {
  std::fprintf(f,
               "%-8s %-8s %-22s %10s %9s %10s %10s %10s %10s %8s %8s %6s %10s %9s %14s %-12s %6s\n",
               "size", "per_rank", "algorithm", "median_us", "mad_us", "p10_us", "p90_us", "min_us",
               "max_us", "algbw", "busbw", "rounds", "model_us", "vs_vendor", "95%_interval",
               "verdict", "#wrong");
  const std::vector<VsVendor> vs = vs_vendor(results);
  for (std::size_t i = 0; i < results.size(); ++i) {
    const Result &r = results[i];
    char rounds[16] = "-", model[16] = "-", ratio[16] = "-";
    if (r.pred.valid) {
      std::snprintf(rounds, sizeof rounds, "%.0f", r.pred.rounds);
      std::snprintf(model, sizeof model, "%.2f", r.pred.model_seconds * 1e6);
    }
    if (r.vs_vendor > 0) std::snprintf(ratio, sizeof ratio, "%.2fx", r.vs_vendor);
    char wrong[24] = "-";  // "-": timing-only buffers (simulation), not verified
    if (r.verified) std::snprintf(wrong, sizeof wrong, "%lld", r.wrong);
    const auto &s = r.stats;
    std::fprintf(f,
                 "%-8s %-8s %-22s %10.2f %9.2f %10.2f %10.2f %10.2f %10.2f %8.3f %8.3f %6s %10s "
                 "%9s %14s %-12s %6s\n",
                 human_bytes(r.bytes).c_str(), human_bytes(r.bytes / std::size_t(P)).c_str(),
                 r.algo.c_str(), s.median * 1e6, s.mad * 1e6, s.p10 * 1e6, s.p90 * 1e6, s.min * 1e6,
                 s.max * 1e6, r.algbw / 1e9, r.busbw / 1e9, rounds, model, ratio,
                 pcoll::apps::format_interval(vs[i].s).c_str(),
                 vs[i].verdict.empty() ? "-" : vs[i].verdict.c_str(), wrong);
  }
  std::fprintf(f,
               "# vs_vendor = vendor median / this median (> 1: faster than vendor); 95%% "
               "interval: percentile bootstrap over the trials (%d resamples, fixed seed); verdict "
               "'within noise' when the interval contains 1.0\n",
               pcoll::apps::kSpeedupResamples);
}

void print_skew(std::FILE *f, const std::vector<Result> &results, int skew_rank, double skew_us) {
  std::fprintf(f,
               "\n# arrival skew (rank %d late by %.0f us): per rank, median ms inside the call / "
               "since the common barrier\n",
               skew_rank, skew_us);
  for (const auto &r : results) {
    std::fprintf(f, "%-8s %-22s", human_bytes(r.bytes).c_str(), r.algo.c_str());
    for (std::size_t q = 0; q < r.skew_inside.size(); ++q)
      std::fprintf(f, "  r%zu %.3f/%.3f", q, r.skew_inside[q] * 1e3, r.skew_total[q] * 1e3);
    std::fprintf(f, "\n");
  }
}

void print_overhead(std::FILE *f, const Overhead &ov) {
  const double d = ov.direct.median, p = ov.through_pcoll.median;
  std::fprintf(f,
               "# tracing-off overhead, 8 B: PMPI direct %.3f us (MAD %.3f), PCOLL vendor path "
               "%.3f us (MAD %.3f) per call; difference %+.3f us (%+.1f%%), median of %d blocks "
               "of %d calls, max over ranks\n",
               d * 1e6, ov.direct.mad * 1e6, p * 1e6, ov.through_pcoll.mad * 1e6, (p - d) * 1e6,
               d > 0 ? 100.0 * (p - d) / d : 0.0, ov.reps, ov.calls_per_rep);
}

void print_pingpong(std::FILE *f, const PingPong &pp) {
  std::fprintf(f, "# ping-pong ranks 0-1, one-way time (median over 41 samples)\n");
  for (const auto &r : pp.rows)
    std::fprintf(f, "#   %8zu B  %10.3f us  (MAD %.3f, p10 %.3f, p90 %.3f)\n", r.bytes,
                 r.one_way.median * 1e6, r.one_way.mad * 1e6, r.one_way.p10 * 1e6,
                 r.one_way.p90 * 1e6);
  std::fprintf(f,
               "# alpha = %.3g s (0-byte median), beta = %.3g s/B (%.2f GB/s, fit of 3 largest)\n",
               pp.alpha, pp.beta, pp.beta > 0 ? 1e-9 / pp.beta : 0.0);
}

bool write_csv(const std::string &path, const std::vector<Result> &results, int P) {
  std::FILE *f = path == "-" ? stdout : std::fopen(path.c_str(), "w");
  if (!f) return false;
  std::fprintf(f,
               "P,bytes,per_rank_bytes,count,algorithm,n,median_s,mad_s,p10_s,p90_s,min_s,max_s,"
               "algbw_Bps,busbw_Bps,rounds,messages,max_bytes_sent,model_s,vs_vendor,wrong,"
               // appended, so that readers by position keep working
               "vs_vendor_lo,vs_vendor_hi,vs_vendor_verdict\n");
  const std::vector<VsVendor> vs = vs_vendor(results);
  for (std::size_t i = 0; i < results.size(); ++i) {
    const Result &r = results[i];
    const auto &s = r.stats;
    std::fprintf(f, "%d,%zu,%zu,%zu,%s,%zu,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.6g,%.6g,", P, r.bytes,
                 r.bytes / std::size_t(P), r.count, r.algo.c_str(), s.n, s.median, s.mad, s.p10,
                 s.p90, s.min, s.max, r.algbw, r.busbw);
    if (r.pred.valid)
      std::fprintf(f, "%.0f,%.0f,%zu,%.9g,", r.pred.rounds, r.pred.messages, r.pred.max_bytes_sent,
                   r.pred.model_seconds);
    else
      std::fprintf(f, ",,,,");
    // wrong = -1: timing-only buffers (simulation), results not verified.
    std::fprintf(f, "%.4f,%lld,", r.vs_vendor, r.verified ? r.wrong : -1LL);
    // Empty bounds: no interval (fewer than 3 trials, the vendor's own row, no vendor in the run).
    if (vs[i].s.has_interval())
      std::fprintf(f, "%.4f,%.4f,%s\n", vs[i].s.lo, vs[i].s.hi, vs[i].verdict.c_str());
    else
      std::fprintf(f, ",,%s\n", vs[i].verdict.c_str());
  }
  return f == stdout ? true : std::fclose(f) == 0;
}

}  // namespace collbench
