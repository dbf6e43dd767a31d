// collprobe: an OSU-style collective probe (allreduce by default; --coll bcast, reduce, barrier,
// allgather, alltoall). In ONE launch it times, interleaved,
//   pmpi                PMPI_<coll> called directly (the vendor's own decision),
//   vendor, <algo>, auto  PCOLL_<coll> with each pcoll algorithm of the collective (the override
//                       is pushed once per block, outside the timed loop),
//   ompi:<algo>         (allreduce) PMPI_Allreduce on a duplicate communicator whose coll/tuned
//                       is forced to one algorithm through MPI_T (ompi_tuned.hpp),
// in blocks of back-to-back calls (a barrier, then CALLS calls; per-call time = block time /
// CALLS, max over ranks = one sample), the entries in a new random order every block round.
// Every result is checked bit for bit against PMPI's and the exact sum outside the timed region;
// a wrong one stops the run (exit 1). It also measures the machine's local reduction bandwidth
// (bandwidth.hpp). scripts/probe.sh runs it for several P, scripts/lib/probe_report.py tabulates.
//
//   OMPI_MCA_coll_tuned_use_dynamic_rules=1 mpirun -np 3 collprobe --blocks 30 --csv p3.csv
#include "../smpi_compat.hpp"  // first: see there

#include <mpi.h>
#include <pcoll/pcoll.h>

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <stdexcept>
#include <string>

#include "bandwidth.hpp"
#include "binned_costs.hpp"
#include "calibrate.hpp"
#include "ompi_tuned.hpp"
#include "options.hpp"
#include "output.hpp"
#include "probe.hpp"

using namespace collprobe;

namespace {

std::string library_version() {
  char lib[MPI_MAX_LIBRARY_VERSION_STRING] = {0};
  int len = 0;
  MPI_Get_library_version(lib, &len);
  std::string s(lib, static_cast<std::size_t>(len));
  const std::size_t eol = s.find_first_of("\r\n");
  if (eol != std::string::npos) s.resize(eol);
  while (!s.empty() && (s.back() == '\0' || s.back() == ' ')) s.pop_back();
  return s;
}

}  // namespace

int main(int argc, char **argv) {
  int provided = 0;  // MPI_THREAD_MULTIPLE when PCOLL_PROGRESS=thread (pcoll's progress thread)
  MPI_Init_thread(&argc, &argv, PCOLL_Required_thread_level(MPI_THREAD_SINGLE), &provided);
  int rank = 0, P = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &P);
  const Options o = parse_options(argc, argv, rank);
  if (o.list) {
    if (rank == 0) print_collectives(stdout);
    MPI_Finalize();
    return 0;
  }
  if (o.binned_costs) {
    const int rc = rank == 0 ? binned_costs(o.csv, o.quiet) : 0;
    MPI_Finalize();
    return rc;
  }
  if (!o.calibrate.empty()) {
    std::string command;  // for the file's [origin] (pcoll-calibrate.sh puts its own there)
    for (int i = 0; i < argc; ++i) command += std::string(i ? " " : "") + argv[i];
    const int rc = calibrate(o.calibrate, o.origin_machine, command, o.torus, o.quiet);
    int worst = rc;
    MPI_Allreduce(&rc, &worst, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    MPI_Finalize();
    return worst;
  }

  // The probe's communicator, made before anything is forced: pmpi and the pcoll entries use it
  // (pcoll's private duplicate of it is made at the first pcoll call, also unforced).
  MPI_Comm base;
  MPI_Comm_dup(MPI_COMM_WORLD, &base);
  MPI_Comm_set_errhandler(base, MPI_ERRORS_RETURN);
  // coll/tuned is forced for the allreduce only (ompi_tuned.hpp).
  OmpiForced forced;
  if (o.coll == Coll::allreduce)
    forced = make_ompi_forced(base);
  else
    forced.note = std::string("no ompi: entries: they force allreduce algorithms only (--coll ") +
                  coll_name(o.coll) + ")";

  int code = 0;
  try {
    const std::vector<Entry> entries = make_entries(o.coll, o.entries, forced, base, o.forms, o.reproducible);
    RunInfo run;
    run.ranks = P;
    run.coll = o.coll;
    run.library = library_version();
    run.ompi = &forced;
    for (const Entry &e : entries) run.entries.push_back(e.label);
    if (rank == 0 && !o.quiet) {
      std::fprintf(stderr, "collprobe: P=%d, %zu entries:", P, entries.size());
      for (const auto &e : run.entries) std::fprintf(stderr, " %s", e.c_str());
      std::fprintf(stderr, "\n");
      if (!forced.note.empty()) std::fprintf(stderr, "collprobe: %s\n", forced.note.c_str());
    }
    run.order_check = order_check(forced, base);
    run.bandwidth = measure_local_bandwidth(o.bw_reps, base);
    const ProbeResult res = run_probe(o, entries, base);
    if (!res.wrong.empty()) {
      if (rank == 0) std::fprintf(stderr, "collprobe: stopped: %s\n", res.wrong.c_str());
      code = 1;
    } else if (rank == 0) {
      print_summary(run, res);
      if (!o.csv.empty()) write_csv(o.csv, run, res);
    }
  } catch (const std::invalid_argument &e) {  // a usage error found after MPI setup
    if (rank == 0) std::fprintf(stderr, "collprobe: %s\n", e.what());
    code = 2;
  } catch (const std::exception &e) {
    std::fprintf(stderr, "collprobe: rank %d: %s\n", rank, e.what());
    MPI_Abort(MPI_COMM_WORLD, 1);  // other ranks may be inside a collective
  }
  free_ompi_forced(forced);
  MPI_Comm_free(&base);
  MPI_Finalize();
  return code;
}
