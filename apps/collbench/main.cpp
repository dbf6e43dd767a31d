// collbench: times pcoll collectives against the vendor MPI in one run, OSU/nccl-tests style,
// with the conventions of "Rings, Trees, and Butterflies: HPX Collectives": warm-ups, a barrier
// before each timed call, the maximum over ranks per call, median/MAD/p10/p90/min/max,
// algorithms in randomized order each repetition (fixed seed), every result verified outside the
// timed region against exactly known values (any wrong result makes the run exit 1), the ledger
// and alpha-beta prediction of each plan beside its measurement, speedup against the vendor
// measured in the same run.
//
//   mpirun -np P collbench --coll allreduce|reduce_scatter_block|allgather
//                          --algos vendor,ring,chiara --min 8 --max 4M
//                          --type double [--in-place] [--cold] [--per-rank-segment 1,8,64]
//                          [--skew-rank R --skew-us D] [--pingpong] [--csv F] [--log F.h5]
//
// See --help. The log is pcoll's trace of the run (docs/trace-format.md) plus /collbench.
#include "../smpi_compat.hpp"  // first: see there

#include <mpi.h>
#include <pcoll/pcoll.h>
#include <pcoll/trace.h>

#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#include "h5log.hpp"
#include "harness.hpp"
#include "options.hpp"
#include "pingpong.hpp"
#include "report.hpp"
#include "sweep.hpp"

using namespace collbench;

namespace {

[[noreturn]] void die(int rank, const std::string &msg, int code = 2) {
  if (rank == 0) std::fprintf(stderr, "collbench: %s\n", msg.c_str());
  MPI_Finalize();
  std::exit(code);
}

// Every algorithm of the collective, vendor included, in pcoll-info's order.
std::vector<std::string> default_algos(const std::string &coll) {
  std::vector<std::string> v;
  for (int i = 0; const char *a = PCOLL_Algorithm_name(coll.c_str(), i); ++i) v.push_back(a);
  return v;
}

}  // namespace

int main(int argc, char **argv) {
  int provided = 0;  // MPI_THREAD_MULTIPLE when PCOLL_PROGRESS=thread (pcoll's progress thread)
  MPI_Init_thread(&argc, &argv, PCOLL_Required_thread_level(MPI_THREAD_SINGLE), &provided);
  int rank = 0, P = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &P);
  const Options o = parse_options(argc, argv, rank);
  const MPI_Comm comm = MPI_COMM_WORLD;
  MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
  if (o.list) {  // from the collective table, so scripts need no list of their own
    if (rank == 0) {
      for (const auto &c : pcoll::collective_table()) {
        if (!c.benchmarkable()) {  // said on stderr, so scripts reading the list still parse it
          std::fprintf(stderr,
                       "collbench: no benchmark for %s (a root or per-rank counts: its "
                       "collective row has no uniform call and data generators; tests/mpi "
                       "checks it): not listed\n",
                       c.name);
          continue;
        }
        std::printf("%s", c.name);
        for (const auto &a : default_algos(c.name)) std::printf(" %s", a.c_str());
        std::printf("\n");
      }
    }
    MPI_Finalize();
    return 0;
  }

  const CollectiveBench *coll = pcoll::find_collective(o.coll);
  if (!coll) {
    std::string known;
    for (const auto &c : pcoll::collective_table())
      if (c.benchmarkable()) known += std::string(known.empty() ? "" : "|") + c.name;
    die(rank, "no benchmark for collective '" + o.coll + "' (have: " + known + ")");
  }
  if (!coll->benchmarkable())
    die(rank, "no benchmark for " + o.coll +
                  " (each rank has its own counts; its collective row has no uniform call and "
                  "data generators): tests/mpi/" +
                  o.coll + "_test.cpp checks it");
  const DataType *plain_type = find_type(o.type);
  if (!plain_type) die(rank, "unknown --type '" + o.type + "' (double|float|int|long)");
  const DataType strided_type = o.layout == "strided" ? strided(*plain_type) : *plain_type;
  const DataType *type = &strided_type;
  const std::vector<std::string> algos = o.algos.empty() ? default_algos(o.coll) : o.algos;
  for (const auto &a : algos) {  // pcoll's own message names the allowed values
    AlgoVariant v;
    try {
      v = parse_variant(a);
    } catch (const std::exception &e) {
      die(rank, std::string("--algos: ") + e.what());
    }
    if (PCOLL_Config_push(comm, o.coll.c_str(), v.algorithm.c_str()) != MPI_SUCCESS)
      die(rank, "unknown algorithm '" + v.algorithm + "' for " + o.coll);
    PCOLL_Config_pop(comm);
    for (const auto &[name, value] : v.settings) {
      if (PCOLL_Config_push(comm, name.c_str(), value.c_str()) != MPI_SUCCESS)
        die(rank, "--algos " + a + ": cannot set " + name + "=" + value);
      PCOLL_Config_pop(comm);
    }
  }
  if (o.in_place && coll->in_place_offset == nullptr)
    die(rank, o.coll + " has no in-place form here");
  if (o.skew_rank >= P) die(rank, "--skew-rank must be < P");
  if (!o.log.empty() && !log_available())
    die(rank, "this collbench was built without HDF5 (PCOLL_WITH_HDF5=OFF): no --log");

  ModelParams mp{o.alpha, o.beta};
  std::string model_source = "PCOLL_MODEL_ALPHA/BETA";
  PingPong pp;
  if (o.pingpong) {
    pp = measure_pingpong(comm);
    if (!pp.valid) die(rank, "--pingpong needs at least 2 ranks");
    if (rank == 0) print_pingpong(stdout, pp);
    if (mp.alpha < 0) mp.alpha = pp.alpha;
    if (mp.beta < 0) mp.beta = pp.beta;
    model_source = "ping-pong of this run";
  }
  if (o.alpha >= 0 || o.beta >= 0) model_source = "--alpha/--beta, else PCOLL_MODEL_*";
  double alpha = 0, beta = 0, gamma = 0;
  model_values(mp, alpha, beta, gamma);

  std::vector<Result> results;
  Overhead ov;
  const bool have_overhead = o.overhead && !o.pingpong_only;
  const std::string partial = o.log + ".partial";
  if (!o.pingpong_only) {
    if (have_overhead) {
      if (PCOLL_Trace_active() && rank == 0)
        std::fprintf(stderr,
                     "collbench: note: PCOLL_TRACE is set, so the overhead below is "
                     "with tracing ON\n");
      ov = measure_overhead(*coll, *type, comm);
    }
    if (!o.log.empty() && o.trace_calls && PCOLL_Trace_start(partial.c_str()) != MPI_SUCCESS)
      die(rank, "cannot start tracing into " + partial);
    if (rank == 0) print_header(stdout, o, P, alpha, beta, model_source.c_str());
    if (have_overhead && rank == 0) print_overhead(stdout, ov);
    if (rank == 0) std::fflush(stdout);
    results = run_sweep(o, *coll, *type, algos, mp, comm);
  }

  if (!o.log.empty()) {
    if (o.trace_calls && !o.pingpong_only && PCOLL_Trace_stop() != MPI_SUCCESS)
      die(rank, "writing the trace failed", 3);
    int ok = 1;
    if (rank == 0) {
      LogContent lc{&o, P, alpha, beta, model_source, &results, &pp, have_overhead ? &ov : nullptr};
      const std::string err = append_log(partial, lc);
      if (err.empty() && std::rename(partial.c_str(), o.log.c_str()) == 0) {
        if (!o.quiet) std::fprintf(stderr, "collbench: wrote %s\n", o.log.c_str());
      } else {
        std::fprintf(stderr, "collbench: log: %s\n", err.empty() ? "rename failed" : err.c_str());
        ok = 0;
      }
    }
    MPI_Bcast(&ok, 1, MPI_INT, 0, comm);
    if (!ok) die(rank, "no log written", 3);
  }

  long long wrong = 0;
  for (const auto &r : results) wrong += r.wrong;
  if (rank == 0 && !o.pingpong_only) {
    print_table(stdout, results, P);
    if (o.skew_rank >= 0) print_skew(stdout, results, o.skew_rank, o.skew_us);
    if (!o.csv.empty() && !write_csv(o.csv, results, P))
      std::fprintf(stderr, "collbench: cannot write %s\n", o.csv.c_str());
    if (wrong) std::fprintf(stderr, "collbench: %lld wrong results: this build is broken\n", wrong);
  }
  MPI_Finalize();
  return wrong ? 1 : 0;
}
