// The case studies' per-iteration phase record and its gather to rank 0, once for kmeans, cg and
// fft3d. Each rank times every iteration of a run by named phases (kmeans: compute and its three
// allreduces; cg: halo, stencil, vector work and the named dot products; fft3d: each transform's
// wall time and its fft, pack, all-to-all and unpack parts); rank 0 gets every rank's record,
// finds the critical path and writes the [iteration][rank][phase] array to the results file.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <initializer_list>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace pcoll::apps {

// One rank's phase times of one run: iteration after iteration, one value per named phase.
class PhaseRecord {
 public:
  PhaseRecord() = default;
  explicit PhaseRecord(std::vector<std::string> names) : names_(std::move(names)) {}
  // From times laid out [iteration][phase] already (one value per phase per iteration).
  PhaseRecord(std::vector<std::string> names, std::vector<double> times)
      : names_(std::move(names)), times_(std::move(times)) {
    if (names_.empty() ? !times_.empty() : times_.size() % names_.size() != 0)
      throw std::logic_error("PhaseRecord: times are not whole iterations of the phases");
  }

  // Appends one iteration's times, in the order of names().
  void add(std::initializer_list<double> times) {
    if (times.size() != names_.size())
      throw std::logic_error("PhaseRecord::add: one time per phase expected");
    times_.insert(times_.end(), times);
  }
  void reserve(std::size_t iterations) { times_.reserve(iterations * names_.size()); }

  const std::vector<std::string> &names() const { return names_; }
  std::size_t phases() const { return names_.size(); }
  std::size_t iterations() const { return names_.empty() ? 0 : times_.size() / names_.size(); }
  const std::vector<double> &times() const { return times_; }  // [iteration][phase], seconds
  double at(std::size_t iteration, std::size_t phase) const {
    return times_[iteration * names_.size() + phase];
  }

 private:
  std::vector<std::string> names_;
  std::vector<double> times_;
};

// The phase names joined with commas: the `phases` attribute of the results files.
inline std::string joined_names(const std::vector<std::string> &names) {
  std::string s;
  for (const std::string &n : names) s += (s.empty() ? "" : ",") + n;
  return s;
}

// Every rank's record of one run, on rank 0 (empty elsewhere).
struct GatheredPhases {
  int ranks = 0;
  std::size_t iterations = 0, phases = 0;
  std::vector<double> wall;  // [rank]: each rank's time of the whole run
  std::vector<double> sums;  // [rank][phase]: each rank's phase times summed over the iterations
  std::vector<double> per_iteration;  // [iteration][rank][phase]; only when asked for
  int critical_rank = 0;              // the rank with the longest wall time (the lowest on ties)
  double total = 0;                   // its wall time

  const double *sums_of(int rank) const { return &sums[static_cast<std::size_t>(rank) * phases]; }
  const double *at(std::size_t iteration, int rank) const {
    return &per_iteration[(iteration * static_cast<std::size_t>(ranks) + rank) * phases];
  }
};

// Collective over comm: every rank's wall time and phase sums to rank 0, and with
// keep_iterations every iteration of every rank too, as [iteration][rank][phase]. Every rank must
// have run the same iterations (the drivers' stopping tests are on reduced values) with the same
// phases.
inline GatheredPhases gather_phases(MPI_Comm comm, double wall, const PhaseRecord &mine,
                                    bool keep_iterations) {
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  const std::size_t nph = mine.phases(), iters = mine.iterations();
  std::vector<double> row(1 + nph, 0.0);  // wall, then the sum of each phase
  row[0] = wall;
  for (std::size_t i = 0; i < iters; ++i)
    for (std::size_t f = 0; f < nph; ++f) row[1 + f] += mine.at(i, f);
  std::vector<double> rows(rank == 0 ? row.size() * static_cast<std::size_t>(size) : 0);
  MPI_Gather(row.data(), static_cast<int>(row.size()), MPI_DOUBLE, rows.data(),
             static_cast<int>(row.size()), MPI_DOUBLE, 0, comm);

  GatheredPhases g;
  std::vector<double> gathered;
  if (keep_iterations) {
    gathered.resize(rank == 0 ? mine.times().size() * static_cast<std::size_t>(size) : 0);
    MPI_Gather(mine.times().data(), static_cast<int>(mine.times().size()), MPI_DOUBLE,
               gathered.data(), static_cast<int>(mine.times().size()), MPI_DOUBLE, 0, comm);
  }
  if (rank != 0) return g;
  g.ranks = size;
  g.iterations = iters;
  g.phases = nph;
  g.sums.resize(static_cast<std::size_t>(size) * nph);
  for (int p = 0; p < size; ++p) {
    const double *v = &rows[static_cast<std::size_t>(p) * row.size()];
    g.wall.push_back(v[0]);
    if (v[0] > g.total) {
      g.total = v[0];
      g.critical_rank = p;
    }
    for (std::size_t f = 0; f < nph; ++f) g.sums[static_cast<std::size_t>(p) * nph + f] = v[1 + f];
  }
  if (keep_iterations) {
    // MPI_Gather lays the records out by rank, [rank][iteration][phase]; the files want
    // [iteration][rank][phase].
    g.per_iteration.resize(gathered.size());
    for (int p = 0; p < size; ++p)
      for (std::size_t i = 0; i < iters; ++i)
        for (std::size_t f = 0; f < nph; ++f)
          g.per_iteration[(i * size + p) * nph + f] = gathered[(p * iters + i) * nph + f];
  }
  return g;
}

}  // namespace pcoll::apps
