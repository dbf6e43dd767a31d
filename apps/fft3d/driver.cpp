// The fft3d driver; see driver.hpp.
#include "driver.hpp"

#include <pcoll/pcoll.h>
#include <pcoll/trace.h>

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <iostream>
#include <map>
#include <stdexcept>
#include <utility>

#include "../common/phase_record.hpp"
#include "checks.hpp"
#include "fftw_anchor.hpp"
#include "field.hpp"
#include "report.hpp"
#include "transform.hpp"

namespace pcoll::fft3d {

namespace {

// Relative error allowed for the spikes, the round trip and the agreement with FFTW-MPI: a
// double-precision FFT of these sizes is accurate to a few 1e-16 times log2 N.
constexpr double kTolerance = 1e-12;

std::vector<std::string> algorithms_of(const char *coll) {
  std::vector<std::string> v;
  for (int i = 0; const char *a = PCOLL_Algorithm_name(coll, i); ++i) v.push_back(a);
  v.push_back("auto");
  return v;
}

std::string joined(const std::vector<std::string> &v) {
  std::string s;
  for (const auto &x : v) s += (s.empty() ? "" : "|") + x;
  return s;
}

std::string grid_string(const std::array<int, 3> &g) {
  return std::to_string(g[0]) + "x" + std::to_string(g[1]) + "x" + std::to_string(g[2]);
}

// Each name must be an alltoall algorithm, and an alltoallv one too when a transpose is uneven.
void check_algorithms(const std::vector<std::string> &names, const DistributedFft &fft, int p) {
  const std::vector<std::string> a2a = algorithms_of("alltoall"), a2av = algorithms_of("alltoallv");
  bool uneven = false;
  for (const auto &info : fft.transposes()) uneven = uneven || info.collective == "alltoallv";
  for (const auto &n : names) {
    if (std::find(a2a.begin(), a2a.end(), n) == a2a.end())
      throw std::invalid_argument("--alltoall '" + n +
                                  "' is not an alltoall algorithm (allowed: " + joined(a2a) + ")");
    if (uneven && std::find(a2av.begin(), a2av.end(), n) == a2av.end()) {
      const std::string what = fft.kind() == Kind::r2c
                                   ? "the r2c half spectrum " + grid_string(fft.spectrum_grid())
                                   : "grid " + grid_string(fft.grid());
      throw std::invalid_argument("--alltoall '" + n + "': " + what +
                                  " does not split evenly over P = " + std::to_string(p) +
                                  ", so its transposes use PCOLL_Alltoallv, whose algorithms "
                                  "are " +
                                  joined(a2av));
    }
  }
}

// Pushes the algorithm on every communicator of the transform, for the collective each uses;
// pops on destruction.
class UseAlgorithm {
 public:
  UseAlgorithm(const DistributedFft &fft, const std::string &name) {
    if (name.empty()) return;
    const auto comms = fft.comms();
    for (std::size_t t = 0; t < comms.size(); ++t) {
      if (PCOLL_Config_push(comms[t], fft.transposes()[t].collective.c_str(), name.c_str()) !=
          MPI_SUCCESS)
        throw std::runtime_error("cannot select " + fft.transposes()[t].collective + " " + name);
      pushed_.push_back(comms[t]);
    }
  }
  ~UseAlgorithm() {
    for (MPI_Comm c : pushed_) PCOLL_Config_pop(c);
  }
  UseAlgorithm(const UseAlgorithm &) = delete;
  UseAlgorithm &operator=(const UseAlgorithm &) = delete;

 private:
  std::vector<MPI_Comm> pushed_;
};

std::string served_by(const DistributedFft &fft) {
  std::string s;
  for (const auto &t : fft.transposes()) s += (s.empty() ? "" : "/") + t.served;
  return s;
}

// Times one forward or backward transform on this rank: {wall, fft, pack, alltoall, unpack}.
template <class F>
void timed(MPI_Comm comm, long long &traced, apps::PhaseRecord &split, const Times *times,
           F &&transform) {
  const Times before = times ? *times : Times{};
  MPI_Barrier(comm);  // every transform starts together: its time is the slowest rank's
  PCOLL_Trace_iteration_begin(traced++);
  const double t0 = MPI_Wtime();
  transform();
  const double wall = MPI_Wtime() - t0;
  PCOLL_Trace_iteration_end();
  const Times after = times ? *times : Times{};
  split.add({wall, after.fft - before.fft, after.pack - before.pack,
             after.alltoall - before.alltoall, after.unpack - before.unpack});
}

// Rank 0: the critical-path means of one run from every rank's per-transform split
// (g.per_iteration: [transform][rank][wall, fft, pack, alltoall, unpack]). Each transform starts
// after a barrier, so its critical path is the rank whose wall time was longest in it.
void summarise(RunRecord &r, apps::GatheredPhases &&g) {
  const int transforms = static_cast<int>(g.iterations);
  r.fastest = 1e300;
  for (int t = 0; t < transforms; ++t) {
    int crit = 0;
    for (int p = 1; p < g.ranks; ++p)
      if (g.at(t, p)[0] > g.at(t, crit)[0]) crit = p;
    const double *v = g.at(t, crit);
    r.time += v[0];
    r.fft += v[1];
    r.pack += v[2];
    r.alltoall += v[3];
    r.unpack += v[4];
    r.fastest = std::min(r.fastest, v[0]);
    r.slowest = std::max(r.slowest, v[0]);
  }
  for (double *x : {&r.time, &r.fft, &r.pack, &r.alltoall, &r.unpack}) *x /= transforms;
  r.other = r.time - (r.fft + r.pack + r.alltoall + r.unpack);
  r.split = std::move(g.per_iteration);
}

}  // namespace

int run_driver(MPI_Comm comm, const Options &opt) {
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  std::array<int, 3> grid = opt.grid;
  if (opt.weak) grid[0] *= size;
  const Decomp decomp = opt.decomp == "slab"                   ? Decomp::slab
                        : opt.decomp == "pencil"               ? Decomp::pencil
                        : (grid[0] >= size && grid[1] >= size) ? Decomp::slab
                                                               : Decomp::pencil;
  const FieldKind kind = opt.field == "random" ? FieldKind::random : FieldKind::waves;
  const Kind tkind = opt.transform == "r2c" ? Kind::r2c : Kind::c2c;
  const Planner planner = opt.planner == "estimate"  ? Planner::estimate
                          : opt.planner == "patient" ? Planner::patient
                                                     : Planner::measure;
  const bool anchor = opt.fftw_mpi && have_fftw_mpi();
  if (opt.fftw_mpi && !have_fftw_mpi() && rank == 0)
    std::cout << "fft3d: this build has no FFTW-MPI (SMPI build): the anchor is not timed\n";

  const int threads = Kokkos::DefaultHostExecutionSpace::concurrency();
  fftw_use_threads(threads);
  if (anchor) fftw_mpi_setup();
  std::unique_ptr<DistributedFft> fft;
  try {
    fft = std::make_unique<DistributedFft>(comm, grid, decomp, planner, tkind);
  } catch (const std::invalid_argument &e) {
    throw std::invalid_argument(std::string("--grid / --decomp ") + opt.decomp + ": " + e.what());
  }
  fft->set_injected_fft(opt.sim_fft_per_transform);
  std::vector<std::string> algorithms = opt.alltoall;
  const bool override_algo = !algorithms.empty();
  if (override_algo) {
    check_algorithms(algorithms, *fft, size);
  } else {
    const char *configured = "auto";
    PCOLL_Config_get(comm, fft->transposes().front().collective.c_str(), &configured);
    algorithms = {configured};
  }
  std::unique_ptr<FftwMpi> fftw;
  if (anchor) fftw = std::make_unique<FftwMpi>(comm, grid, planner, tkind);
  if (!opt.trace.empty() && PCOLL_Trace_start(opt.trace.c_str()) != MPI_SUCCESS)
    throw std::runtime_error("cannot trace into " + opt.trace + " (pcoll built without HDF5?)");

  RunSetup setup;
  setup.deck = opt.deck_name;
  setup.decomp = decomp_name(decomp);
  setup.field = field_name(kind);
  setup.transform = kind_name(tkind);
  setup.planner = planner_name(planner);
  setup.ranks = size;
  setup.threads = threads;
  setup.p0 = fft->proc_grid().p0;
  setup.p1 = fft->proc_grid().p1;
  setup.grid = grid;
  setup.runs = opt.runs;
  setup.warmup = opt.warmup;
  setup.iterations = opt.iterations;
  setup.overlap = opt.overlap;
  // The timed entries: every algorithm with every piece count (labelled NAME:overlap=K when
  // K > 1), then the anchor.
  struct Entry {
    std::string algorithm;
    int overlap = 1;
  };
  std::vector<Entry> entries;
  for (const auto &name : algorithms)
    for (int k : opt.overlap) {
      entries.push_back({name, k});
      setup.algorithms.push_back(k > 1 ? name + ":overlap=" + std::to_string(k) : name);
    }
  if (anchor) {
    entries.push_back({kFftwMpi, 1});
    setup.algorithms.push_back(kFftwMpi);
  }
  setup.command_line = opt.command_line;
  setup.tolerance = kTolerance;
  const char *threshold = "0";
  PCOLL_Config_get(comm, "pairwise_threshold", &threshold);
  setup.pairwise_threshold = std::atoll(threshold);

  // ---- verification, outside every timed region ----
  const std::vector<Wave> waves = default_waves(grid);
  std::map<int, std::uint64_t> ref_forward, ref_backward;  // per piece count
  std::vector<Complex> ours_global, fftw_global;
  const std::int64_t total = std::int64_t(grid[0]) * grid[1] * grid[2];
  const bool assemble = anchor && total <= (std::int64_t(1) << 27);  // <= 2 GiB on rank 0
  FieldOps<DistributedFft> ours(comm, *fft, tkind, grid, kind, waves);
  // Every piece count is verified (its pieces' FFTW plans may round differently in the last
  // bit); the errors printed are the largest, FFTW-MPI is compared with the first.
  for (int k : opt.overlap) {
    if (ref_forward.count(k)) continue;
    UseAlgorithm use(*fft, override_algo ? algorithms.front() : "");
    fft->set_overlap(k);
    ours.fill_input();
    fft->forward();
    if (kind == FieldKind::waves)
      setup.spectrum_error = std::max(setup.spectrum_error, ours.spectrum_error());
    ref_forward[k] = ours.output_digest();
    if (assemble && k == opt.overlap.front()) ours_global = ours.gather_spectrum();
    fft->backward();
    setup.roundtrip_error = std::max(setup.roundtrip_error, ours.roundtrip_error());
    ref_backward[k] = ours.input_digest();
    if (k == opt.overlap.front()) setup.transposes = fft->transposes();  // what served it
  }
  std::unique_ptr<FieldOps<FftwMpi>> theirs;
  if (anchor) {
    theirs = std::make_unique<FieldOps<FftwMpi>>(comm, *fftw, tkind, grid, kind, waves);
    theirs->fill_input();
    fftw->forward();
    if (kind == FieldKind::waves) setup.fftw_spectrum_error = theirs->spectrum_error();
    if (assemble) fftw_global = theirs->gather_spectrum();
    fftw->backward();
    setup.fftw_roundtrip_error = theirs->roundtrip_error();
    if (assemble && rank == 0)
      setup.fftw_difference = relative_difference(ours_global, fftw_global);
    MPI_Bcast(&setup.fftw_difference, 1, MPI_DOUBLE, 0, comm);
  }
  ours_global.clear();
  ours_global.shrink_to_fit();
  fftw_global.clear();
  fftw_global.shrink_to_fit();
  bool verified = true;
  if (rank == 0) {
    print_header(std::cout, setup);
    verified = print_verification(std::cout, setup);
  }

  // ---- timed runs: every algorithm and the anchor in rotating order ----
  long long traced = 0;
  std::vector<RunRecord> records;
  const int n = static_cast<int>(entries.size());
  for (int rep = 0; rep < opt.warmup + opt.runs; ++rep) {
    for (int j = 0; j < n; ++j) {
      const int e = (j + rep) % n;
      const std::string &name = entries[e].algorithm;
      const int pieces = entries[e].overlap;
      const bool is_fftw = name == kFftwMpi;
      apps::PhaseRecord split(split_names());
      bool bits_ok = true;
      if (is_fftw) {
        theirs->fill_input();
        PCOLL_Trace_phase_begin(kFftwMpi);
        for (int it = 0; it < opt.iterations; ++it) {
          timed(comm, traced, split, nullptr, [&] { fftw->forward(); });
          timed(comm, traced, split, nullptr, [&] { fftw->backward(); });
          theirs->rescale();
        }
        PCOLL_Trace_phase_end(kFftwMpi);
      } else {
        UseAlgorithm use(*fft, override_algo ? name : "");
        fft->set_overlap(pieces);
        ours.fill_input();
        for (int it = 0; it < opt.iterations; ++it) {
          timed(comm, traced, split, &fft->times(), [&] { fft->forward(); });
          if (it == 0) bits_ok = ours.output_digest() == ref_forward.at(pieces);
          timed(comm, traced, split, &fft->times(), [&] { fft->backward(); });
          if (it == 0) bits_ok = bits_ok && ours.input_digest() == ref_backward.at(pieces);
          ours.rescale();
        }
      }
      // Every transform of every rank, for the critical path of each (and the HDF5 file).
      apps::GatheredPhases all = apps::gather_phases(comm, 0.0, split, true);
      if (rank != 0) continue;
      RunRecord rec;
      rec.algorithm = setup.algorithms[e];
      rec.overlap = pieces;
      rec.served = is_fftw ? "FFTW-MPI" : served_by(*fft);
      rec.warmup = rep < opt.warmup;
      rec.rep = rec.warmup ? rep : rep - opt.warmup;
      rec.bits_ok = bits_ok;
      summarise(rec, std::move(all));
      if (opt.output.empty()) rec.split.clear();
      if (!opt.quiet) print_run(std::cout, rec, records.empty());
      records.push_back(std::move(rec));
    }
  }
  if (!opt.trace.empty() && PCOLL_Trace_stop() != MPI_SUCCESS)
    throw std::runtime_error("writing the trace " + opt.trace + " failed");

  int ok = 1;
  if (rank == 0) {
    ok = print_summary(std::cout, setup, records) && verified ? 1 : 0;
    std::cout.flush();
    if (!opt.csv.empty()) write_csv(opt.csv, setup, records);
    if (!opt.output.empty()) write_results_h5(opt.output, setup, records);
  }
  MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, comm);
  return ok ? 0 : 3;
}

}  // namespace pcoll::fft3d
