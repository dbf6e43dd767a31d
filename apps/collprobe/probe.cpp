#include "probe.hpp"

#include <pcoll/pcoll.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <numeric>
#include <random>
#include <stdexcept>
#include <thread>

namespace collprobe {

namespace {
std::vector<Entry> base_entries(Coll coll, const std::vector<std::string> &only,
                                const OmpiForced &forced, MPI_Comm base) {
  std::vector<Entry> all;
  all.push_back({"pmpi", Kind::pmpi, "", base});
  for (int i = 0; const char *a = PCOLL_Algorithm_name(coll_name(coll), i); ++i)
    all.push_back({a, Kind::pcoll, a, base});
  // `auto` is a selection rule, not an algorithm row, so the enumeration does not list it.
  if (std::none_of(all.begin(), all.end(), [](const Entry &e) { return e.label == "auto"; }))
    all.push_back({"auto", Kind::pcoll, "auto", base});
  // Empty where coll/tuned cannot be forced for `coll` (make_ompi_forced's caller says why).
  for (const ForcedComm &f : forced.comms) all.push_back({f.label, Kind::forced, "", f.comm});
  if (only.empty()) return all;
  std::vector<Entry> picked{all.front()};
  for (const std::string &name : only) {
    if (name == "pmpi") continue;
    auto it = std::find_if(all.begin(), all.end(), [&](const Entry &e) { return e.label == name; });
    if (it == all.end()) {
      std::string list;
      for (const Entry &e : all) list += (list.empty() ? "" : ", ") + e.label;
      std::string why =
          "--entries " + name + ": unknown or unavailable in this run (available: " + list + ")";
      if (name.rfind("ompi:", 0) == 0 && !forced.note.empty()) why += "; " + forced.note;
      throw std::invalid_argument(why);
    }
    if (std::none_of(picked.begin(), picked.end(), [&](const Entry &e) { return e.label == name; }))
      picked.push_back(*it);
  }
  return picked;
}

std::vector<Entry> in_forms(const std::vector<Entry> &entries,
                            const std::vector<std::string> &forms) {
  for (const std::string &f : forms)
    if (f != "blocking" && f != "nonblocking" && f != "persistent")
      throw std::invalid_argument("--forms " + f +
                                  ": unknown (allowed: blocking, nonblocking, persistent)");
  auto has = [&](const char *f) { return std::find(forms.begin(), forms.end(), f) != forms.end(); };
  std::vector<Entry> out;
  for (const Entry &e : entries) {
    // pmpi is always there in its blocking form: the reference of every check.
    if (has("blocking") || e.kind == Kind::pmpi) out.push_back(e);
    if (e.kind == Kind::forced) continue;
    if (has("nonblocking")) {
      Entry nb = e;
      nb.label += "/nb";
      nb.form = Form::nonblocking;
      out.push_back(nb);
    }
    if (has("persistent") && e.kind == Kind::pcoll) {
      Entry p = e;
      p.label += "/persistent";
      p.form = Form::persistent;
      out.push_back(p);
    }
  }
  return out;
}
}  // namespace

std::vector<Entry> make_entries(Coll coll, const std::vector<std::string> &only,
                                const OmpiForced &forced, MPI_Comm base,
                                const std::vector<std::string> &forms, bool reproducible) {
  if (reproducible && coll != Coll::allreduce && coll != Coll::reduce)
    throw std::invalid_argument(std::string("--reproducible: a reduction's mode (--coll allreduce "
                                            "or reduce), not ") +
                                coll_name(coll));
  std::vector<Entry> out = in_forms(base_entries(coll, only, forced, base), forms);
  if (reproducible) {
    const std::size_t n = out.size();
    for (std::size_t i = 0; i < n; ++i) {
      if (out[i].kind != Kind::pcoll) continue;
      Entry e = out[i];
      e.label += "+repro";
      e.reproducible = true;
      out.push_back(e);
    }
  }
  return out;
}

namespace {

constexpr int kWarmupChunks = 4;  // the warm-up calls of an entry are timed in this many chunks

// A persistent entry's request, made for one block (or check) outside the timed region, under
// the entry's algorithm (its decision and plan are fixed at init); nothing for the other forms.
class Prepared {
 public:
  Prepared(const Entry &e, Coll coll, Buffers &b) {
    if (e.form == Form::persistent) rc_ = init_persistent(coll, b, e.comm, &req_);
  }
  ~Prepared() {
    if (req_ != MPI_REQUEST_NULL) PCOLL_Request_free(&req_);
  }
  Prepared(const Prepared &) = delete;
  Prepared &operator=(const Prepared &) = delete;
  MPI_Request *request() { return &req_; }
  int error() const { return rc_; }

 private:
  MPI_Request req_ = MPI_REQUEST_NULL;
  int rc_ = MPI_SUCCESS;
};

// One nonblocking or persistent call of an entry, in three steps (the overlap measurement puts
// compute between them).
int start_call(const Entry &e, Coll coll, Prepared &prep, Buffers &b, MPI_Request *r) {
  if (e.form == Form::persistent) {
    *r = *prep.request();
    return PCOLL_Start(prep.request());
  }
  return start_nonblocking(coll, e.kind == Kind::pcoll, b, e.comm, r);
}
int test_call(const Entry &e, Prepared &prep, MPI_Request *r) {
  int flag = 0;
  if (e.form == Form::persistent) return PCOLL_Test(prep.request(), &flag, MPI_STATUS_IGNORE);
  return e.kind == Kind::pcoll ? PCOLL_Test(r, &flag, MPI_STATUS_IGNORE)
                               : PMPI_Test(r, &flag, MPI_STATUS_IGNORE);
}
int wait_call(const Entry &e, Prepared &prep, MPI_Request *r) {
  if (e.form == Form::persistent) return PCOLL_Wait(prep.request(), MPI_STATUS_IGNORE);
  return e.kind == Kind::pcoll ? PCOLL_Wait(r, MPI_STATUS_IGNORE) : PMPI_Wait(r, MPI_STATUS_IGNORE);
}

// Until MPI_Wtime() reaches `until`: busy (OSU's dummy compute), or asleep (`sleep`: the core is
// free meanwhile, as when the CPU waits for a device kernel or for I/O).
void pass_until(double until, bool asleep) {
  while (MPI_Wtime() < until) {
    if (asleep) std::this_thread::sleep_for(std::chrono::duration<double>(until - MPI_Wtime()));
  }
}

// "Compute" for `seconds` (--overlap-compute spin or sleep), with `tests` test calls on the
// request spread evenly over it (OSU's -t; 0: none).
int compute(double seconds, int tests, bool asleep, const Entry *e, Prepared *prep,
            MPI_Request *r) {
  int rc = MPI_SUCCESS;
  const double t0 = MPI_Wtime();
  for (int k = 1; k <= tests; ++k) {
    pass_until(t0 + seconds * k / (tests + 1), asleep);
    rc |= test_call(*e, *prep, r);
  }
  pass_until(t0 + seconds, asleep);
  return rc;
}

// The calls of one entry on the given buffers; returns the first error code, if any. One tight
// loop per collective and kind for the blocking form (collective.cpp); the others through
// start_call and wait_call.
int call_entry(const Entry &e, Coll coll, Prepared &prep, Buffers &b, int calls) {
  int rc = prep.error();
  if (rc != MPI_SUCCESS) return rc;
  if (e.form == Form::blocking) return blocking_calls(coll, e.kind == Kind::pcoll, b, e.comm, calls);
  MPI_Request r = MPI_REQUEST_NULL;
  for (int i = 0; i < calls; ++i) {
    rc |= start_call(e, coll, prep, b, &r);
    rc |= wait_call(e, prep, &r);
  }
  return rc;
}

// The algorithm override of a pcoll entry, pushed for one block (or one check) and popped after:
// outside the timed loop.
class Scope {
 public:
  Scope(const Entry &e, Coll coll) : e_(e) {
    if (e_.kind != Kind::pcoll) return;
    if (PCOLL_Config_push(e_.comm, coll_name(coll), e_.algorithm.c_str()) != MPI_SUCCESS)
      throw std::runtime_error(std::string("PCOLL_Config_push(") + coll_name(coll) + "=" +
                               e_.algorithm + ") failed");
    pushed_ = 1;
    if (e_.reproducible) {
      if (PCOLL_Config_push(e_.comm, "reproducible", "on") != MPI_SUCCESS)
        throw std::runtime_error("PCOLL_Config_push(reproducible=on) failed");
      pushed_ = 2;
    }
  }
  ~Scope() {
    for (int i = 0; i < pushed_; ++i) PCOLL_Config_pop(e_.comm);
  }
  Scope(const Scope &) = delete;
  Scope &operator=(const Scope &) = delete;

 private:
  const Entry &e_;
  int pushed_ = 0;  // overrides pushed
};

double max_over(double x, MPI_Comm comm) {
  double m = 0;
  PMPI_Allreduce(&x, &m, 1, MPI_DOUBLE, MPI_MAX, comm);
  return m;
}

// Message of this rank's first wrong element, or "".
std::string compare(const std::vector<double> &got, const std::vector<double> &want,
                    const char *what) {
  for (std::size_t i = 0; i < got.size(); ++i)
    if (std::memcmp(&got[i], &want[i], sizeof(double)) != 0) {
      char buf[160];
      std::snprintf(buf, sizeof buf, "element %zu is %.17g, %s gives %.17g", i, got[i], what,
                    want[i]);
      return buf;
    }
  return "";
}

}  // namespace

ProbeResult run_probe(const Options &o, const std::vector<Entry> &entries, MPI_Comm base) {
  int rank = 0, P = 1;
  MPI_Comm_rank(base, &rank);
  MPI_Comm_size(base, &P);
  ProbeResult res;
  const std::size_t n = entries.size();
  std::mt19937 gen(o.seed);
  // Which entry opens each block round: a fixed random rotation, so every entry takes the first
  // (warm-up-absorbing) position equally often.
  std::vector<std::size_t> opener(n);
  std::iota(opener.begin(), opener.end(), 0);
  std::shuffle(opener.begin(), opener.end(), gen);
  const double t_start = MPI_Wtime();
  int round = 0;

  // Collective: true (on every rank) if some rank's `bad` is non-empty; each such rank says why.
  auto any_wrong = [&](const std::string &bad, const Entry &e, std::size_t bytes) {
    const double b = max_over(bad.empty() ? 0.0 : 1.0, base);
    if (!bad.empty())
      std::fprintf(stderr, "collprobe: WRONG result: %s at %s, rank %d: %s\n", e.label.c_str(),
                   human_bytes(bytes).c_str(), rank, bad.c_str());
    if (b > 0 && res.wrong.empty())
      res.wrong = "wrong result of " + e.label + " at " + human_bytes(bytes);
    return b > 0;
  };

  const Coll coll = o.coll;
  // A barrier moves no data: one row, whatever the sizes (options.cpp refuses --sizes there).
  const std::vector<std::size_t> sizes =
      coll == Coll::barrier ? std::vector<std::size_t>{0} : o.sizes;
  for (std::size_t bytes : sizes) {
    Buffers buf(coll, bytes, rank, P);
    std::vector<double> reference;  // pmpi's result on this rank
    SizeInfo info;
    info.bytes = bytes;
    // Outside the timed region: this rank's result against pmpi's, bit for bit (where the
    // collective defines one on this rank).
    auto verdict = [&](int rc, const std::vector<double> &want, const char *what) -> std::string {
      if (rc != MPI_SUCCESS) return "error code " + std::to_string(rc);
      return buf.result_here() ? compare(buf.recv, want, what) : "";
    };
    auto check = [&](int rc) { return verdict(rc, reference, "pmpi"); };

    // --- verification, outside any timed region: pmpi (always entries[0], make_entries puts it
    // first) against the exact result, then every other entry against pmpi, bit for bit ---
    for (const Entry &e : entries) {
      buf.poison();
      int rc = MPI_SUCCESS;
      {
        Scope use(e, coll);
        Prepared prep(e, coll, buf);
        rc = call_entry(e, coll, prep, buf, 1);
        if (e.kind == Kind::pcoll) {
          const char *served = "";
          PCOLL_Get_last_algorithm(e.comm, &served);
          if (e.algorithm != served) info.served.emplace_back(e.label, served);
        }
      }
      if (e.label == o.corrupt_for_test && rank == 0 && !buf.recv.empty()) buf.recv[0] += 1.0;
      const bool is_pmpi = e.kind == Kind::pmpi;
      const std::string bad = is_pmpi ? verdict(rc, buf.exact, "the exact result") : check(rc);
      if (is_pmpi) reference = buf.recv;
      if (any_wrong(bad, e, bytes)) return res;
    }

    // --- warm-up, which also sizes the blocks: per entry the fastest of a few warm-up chunks
    // (a chunk that lost the core to another process says nothing about the call), then the
    // median over entries ---
    std::vector<double> per_call;
    for (const Entry &e : entries) {
      Scope use(e, coll);
      Prepared prep(e, coll, buf);
      double best = 0;
      for (int chunk = 0, left = o.warmup; left > 0; ++chunk) {
        const int c = std::min(left, std::max(o.warmup / kWarmupChunks, 1));
        left -= c;
        MPI_Barrier(base);
        const double t0 = MPI_Wtime();
        call_entry(e, coll, prep, buf, c);
        const double t = max_over((MPI_Wtime() - t0) / c, base);
        best = chunk == 0 ? t : std::min(best, t);
      }
      per_call.push_back(best);
    }
    std::nth_element(per_call.begin(), per_call.begin() + per_call.size() / 2, per_call.end());
    const double median = per_call[per_call.size() / 2];
    info.calls = o.calls;
    if (o.block_ms > 0 && o.warmup > 0 && median > 0)  // same value on every rank (max over)
      info.calls = static_cast<int>(
          std::clamp<double>(o.block_ms * 1e-3 / median, std::min(o.min_calls, o.calls), o.calls));

    // --- the timed blocks ---
    std::vector<std::size_t> order(n);
    std::iota(order.begin(), order.end(), 0);
    for (int block = 0; block < o.blocks; ++block, ++round) {
      std::shuffle(order.begin(), order.end(), gen);
      std::iter_swap(order.begin(), std::find(order.begin(), order.end(), opener[round % n]));
      for (std::size_t k : order) {
        const Entry &e = entries[k];
        Scope use(e, coll);
        Prepared prep(e, coll, buf);
        MPI_Barrier(base);
        const double t0 = MPI_Wtime();
        const int rc = call_entry(e, coll, prep, buf, info.calls);
        const double t = (MPI_Wtime() - t0) / info.calls;
        // Outside the timed region: the last call's result must still be the reference.
        const std::string bad = check(rc);
        const double worst = max_over(t, base);
        if (any_wrong(bad, e, bytes)) return res;
        if (rank == 0) res.samples.push_back({bytes, e.label, block, worst});
      }
    }
    // --- overlap, osu_iallreduce's definition: t_pure = start + wait alone, t_compute = a
    // compute of --overlap-factor x t_pure alone (busy, or asleep with --overlap-compute sleep),
    // t_total = start, the compute, wait; overlap = 100 (1 - (t_total - t_compute) / t_pure),
    // clipped to [0, 100]. Medians over blocks of the per-block maximum over ranks. ---
    if (o.overlap) {
      const bool asleep = o.overlap_compute == "sleep";
      for (const Entry &e : entries) {
        if (e.form == Form::blocking) continue;
        Scope use(e, coll);
        Prepared prep(e, coll, buf);
        std::vector<double> pure, comp, total;
        const int calls = std::max(1, info.calls / 4);
        const int blocks = std::max(3, o.blocks / 2);
        int rc = MPI_SUCCESS;
        for (int b = 0; b < blocks; ++b) {
          MPI_Barrier(base);
          double t0 = MPI_Wtime();
          rc |= call_entry(e, coll, prep, buf, calls);
          pure.push_back(max_over((MPI_Wtime() - t0) / calls, base));
        }
        std::sort(pure.begin(), pure.end());
        const double target = o.overlap_factor * pure[pure.size() / 2];
        for (int b = 0; b < blocks; ++b) {
          MPI_Barrier(base);
          double t0 = MPI_Wtime();
          for (int i = 0; i < calls; ++i) compute(target, 0, asleep, nullptr, nullptr, nullptr);
          comp.push_back(max_over((MPI_Wtime() - t0) / calls, base));
          MPI_Barrier(base);
          t0 = MPI_Wtime();
          for (int i = 0; i < calls; ++i) {
            MPI_Request r = MPI_REQUEST_NULL;
            rc |= start_call(e, coll, prep, buf, &r);
            rc |= compute(target, o.overlap_tests, asleep, &e, &prep, &r);
            rc |= wait_call(e, prep, &r);
          }
          total.push_back(max_over((MPI_Wtime() - t0) / calls, base));
        }
        if (any_wrong(check(rc), e, bytes)) return res;
        std::sort(comp.begin(), comp.end());
        std::sort(total.begin(), total.end());
        OverlapRow row{bytes, e.label, pure[pure.size() / 2], comp[comp.size() / 2],
                       total[total.size() / 2], 0};
        row.percent = std::clamp(100.0 * (1.0 - (row.total - row.compute) / row.pure), 0.0, 100.0);
        res.overlap.push_back(row);
      }
    }
    res.sizes.push_back(info);
    if (!o.quiet && rank == 0)
      std::fprintf(stderr, "collprobe: P=%d %s done (%d calls per block), %.0f s\n", P,
                   human_bytes(bytes).c_str(), info.calls, MPI_Wtime() - t_start);
  }
  return res;
}

}  // namespace collprobe
