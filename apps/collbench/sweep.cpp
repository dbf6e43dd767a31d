#include "sweep.hpp"

#include <pcoll/pcoll.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <random>
#include <stdexcept>
#include <string>
#include <thread>

namespace collbench {

namespace {

// The algorithm and parameter settings of one --algos entry, for the calls in its scope.
class VariantScope {
 public:
  VariantScope(MPI_Comm comm, const char *coll, const AlgoVariant &v) : comm_(comm) {
    push(coll, v.algorithm);
    for (const auto &[name, value] : v.settings) push(name, value);
  }
  ~VariantScope() {
    for (; pushed_ > 0; --pushed_) PCOLL_Config_pop(comm_);
  }
  VariantScope(const VariantScope &) = delete;
  VariantScope &operator=(const VariantScope &) = delete;

 private:
  void push(const std::string &name, const std::string &value) {
    if (PCOLL_Config_push(comm_, name.c_str(), value.c_str()) != MPI_SUCCESS)
      throw std::invalid_argument("collbench: cannot set " + name + "=" + value);
    ++pushed_;
  }
  MPI_Comm comm_;
  int pushed_ = 0;
};

double max_over_ranks(double x, MPI_Comm comm) {
  double m = 0;
  MPI_Allreduce(&x, &m, 1, MPI_DOUBLE, MPI_MAX, comm);
  return m;
}

// A set of buffers per call in cold mode (so no call reuses the previous call's buffers), one
// otherwise.
struct Pool {
  std::vector<Buffers> sets;
  std::vector<unsigned char> evict;
  std::size_t next = 0;
};

}  // namespace

std::vector<std::size_t> sweep_counts(const Options &o, const CollectiveBench &c,
                                      std::size_t type_size, int P) {
  std::vector<std::size_t> counts;
  if (!o.segments.empty()) {
    for (std::size_t s : o.segments) counts.push_back(c.count_for_segment(s, P));
  } else if (!o.sizes.empty()) {
    for (std::size_t b : o.sizes) counts.push_back(c.count_for_bytes(b, type_size, P));
  } else {
    for (std::size_t b = o.min_bytes; b <= o.max_bytes; b *= 2)
      counts.push_back(c.count_for_bytes(b, type_size, P));
  }
  for (auto &n : counts) n = std::max<std::size_t>(n, 1);
  return counts;
}

std::vector<Result> run_sweep(const Options &o, const CollectiveBench &c, const DataType &t,
                              const std::vector<std::string> &algos, const ModelParams &mp,
                              MPI_Comm comm) {
  int rank = 0, P = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &P);
  const std::vector<std::size_t> counts = sweep_counts(o, c, t.size, P);
  std::vector<AlgoVariant> variants;  // validated by main
  for (const auto &a : algos) variants.push_back(parse_variant(a));
  std::vector<Result> results;
  std::mt19937 order_gen(o.seed);
  const std::size_t shared_from = sim_shared_bytes(comm);
  const double t_start = MPI_Wtime();
  for (std::size_t si = 0; si < counts.size(); ++si) {
    const std::size_t count = counts[si];
    Pool pool;
    Buffers proto;
    const std::size_t buffer_bytes = c.vector_elems(count, P) * t.size;
    const bool timing_only = shared_from > 0 && buffer_bytes >= shared_from;
    if (timing_only) {
      proto.make_timing_only(c, t, count, P);
    } else {
      proto.fill_send(c, t, count, rank, P);
      proto.fill_expected(c, t, count, rank, P);
    }
    std::size_t nsets = 1;
    if (o.cold && !timing_only) {
      const std::size_t set_bytes = proto.send.size() + 2 * proto.expected.size();
      nsets = std::clamp<std::size_t>((std::size_t(64) << 20) / std::max<std::size_t>(set_bytes, 1),
                                      2, 16);
      pool.evict.assign(o.cold_bytes, 0);
    }
    pool.sets.assign(nsets, proto);

    std::vector<Result> rows(algos.size());
    std::vector<std::vector<double>> inside(algos.size()), total(algos.size());
    for (std::size_t a = 0; a < algos.size(); ++a) {
      rows[a].algo = algos[a];
      rows[a].count = count;
      // nccl-tests' size: the larger of the send and receive buffers.
      rows[a].bytes = buffer_bytes;
      rows[a].verified = !timing_only;
    }
    std::vector<std::size_t> order(algos.size());
    for (std::size_t a = 0; a < order.size(); ++a) order[a] = a;
    for (int trial = -o.warmup; trial < o.trials; ++trial) {
      std::shuffle(order.begin(), order.end(), order_gen);
      for (std::size_t a : order) {
        VariantScope use(comm, c.name, variants[a]);
        Buffers &b = pool.sets[pool.next++ % pool.sets.size()];
        if (!timing_only) b.prepare(c, t, count, rank, P, o.in_place);
        if (o.cold)  // evict caches: the call finds neither its buffers nor its code's data warm
          std::fill(pool.evict.begin(), pool.evict.end(), static_cast<unsigned char>(trial));
        const void *send = o.in_place ? MPI_IN_PLACE : b.send_data();
        MPI_Barrier(comm);
        const double t0 = MPI_Wtime();
        if (rank == o.skew_rank && o.skew_us > 0)
          std::this_thread::sleep_for(std::chrono::duration<double, std::micro>(o.skew_us));
        const double t_in = MPI_Wtime();
        const int rc = c.call(send, b.recv_data(), static_cast<int>(count), t.mpi, kBenchOp, comm);
        const double t1 = MPI_Wtime();
        // --- outside the timed region ---
        if (o.corrupt_for_test && trial == 0 && a == 0 && rank == 0 && !b.recv.empty())
          b.recv[0] ^= 0x40;
        const double worst = max_over_ranks(t1 - t_in, comm);
        int bad = (rc != MPI_SUCCESS || (!timing_only && !b.correct())) ? 1 : 0, any_bad = 0;
        MPI_Allreduce(&bad, &any_bad, 1, MPI_INT, MPI_MAX, comm);
        if (any_bad && rank == 0 && rows[a].wrong == 0)
          std::fprintf(stderr, "collbench: WRONG result: %s %s count=%zu (trial %d)\n", c.name,
                       algos[a].c_str(), count, trial);
        rows[a].wrong += any_bad;
        if (trial < 0) continue;
        rows[a].times.push_back(worst);
        if (o.skew_rank >= 0) {
          double mine[2] = {t1 - t_in, t1 - t0};
          std::vector<double> all(rank == 0 ? 2 * static_cast<std::size_t>(P) : 0);
          MPI_Gather(mine, 2, MPI_DOUBLE, all.data(), 2, MPI_DOUBLE, 0, comm);
          for (std::size_t r = 0; r < all.size() / 2; ++r) {
            inside[a].push_back(all[2 * r]);
            total[a].push_back(all[2 * r + 1]);
          }
        }
      }
    }
    double vendor_median = 0;
    for (std::size_t a = 0; a < algos.size(); ++a) {
      Result &r = rows[a];
      r.stats = describe(r.times);
      if (r.stats.median > 0) r.algbw = double(r.bytes) / r.stats.median;
      r.busbw = r.algbw * c.bus_factor(P);
      if (r.algo == "vendor") vendor_median = r.stats.median;
      // The ledger builds and matches all P ranks' plans: only rank 0, which reports it, pays
      // (every rank doing it cost O(P^2) plan builds: most of the wall time of a simulation).
      if (rank == 0) r.pred = predict(c.name, variants[a], P, count, t.size, mp);
      if (o.skew_rank >= 0 && rank == 0) {
        for (int q = 0; q < P; ++q) {
          std::vector<double> in_q, tot_q;
          for (std::size_t k = static_cast<std::size_t>(q); k < inside[a].size(); k += P)
            in_q.push_back(inside[a][k]), tot_q.push_back(total[a][k]);
          r.skew_inside.push_back(quantile(in_q, 0.5));
          r.skew_total.push_back(quantile(tot_q, 0.5));
        }
      }
    }
    for (auto &r : rows) {
      if (vendor_median > 0 && r.stats.median > 0) r.vs_vendor = vendor_median / r.stats.median;
      results.push_back(std::move(r));
    }
    const double elapsed = MPI_Wtime() - t_start;
    if (!o.quiet && rank == 0 && elapsed > 2.0)
      std::fprintf(stderr, "collbench: %zu/%zu sizes done (%s), %.0f s\n", si + 1, counts.size(),
                   human_bytes(results.back().bytes).c_str(), elapsed);
  }
  return results;
}

Overhead measure_overhead(const CollectiveBench &c, const DataType &t, MPI_Comm comm) {
  Overhead ov;
  ov.reps = 31;
  ov.calls_per_rep = 200;
  int rank = 0, P = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &P);
  const std::size_t count = std::max<std::size_t>(c.count_for_bytes(8, t.size, P), 1);
  Buffers b;
  b.fill_send(c, t, count, rank, P);
  b.fill_expected(c, t, count, rank, P);
  b.prepare(c, t, count, rank, P, false);
  pcoll::ScopedConfig use(comm, c.name, "vendor");
  std::vector<double> direct, through;
  const int n = static_cast<int>(count);
  for (int rep = -2; rep < ov.reps; ++rep) {
    for (int which = 0; which < 2; ++which) {
      const bool pcoll_first = rep % 2 == 0;  // alternate which goes first
      const bool use_pcoll = (which == 0) == pcoll_first;
      MPI_Barrier(comm);
      const double t0 = MPI_Wtime();
      for (int k = 0; k < ov.calls_per_rep; ++k)
        (use_pcoll ? c.call : c.vendor)(b.send.data(), b.recv.data(), n, t.mpi, kBenchOp, comm);
      const double per_call = max_over_ranks((MPI_Wtime() - t0) / ov.calls_per_rep, comm);
      if (rep >= 0) (use_pcoll ? through : direct).push_back(per_call);
    }
  }
  ov.direct = describe(direct);
  ov.through_pcoll = describe(through);
  return ov;
}

}  // namespace collbench
