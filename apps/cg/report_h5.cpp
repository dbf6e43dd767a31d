// The CG driver's HDF5 results file (rank 0, serial HDF5): the run's setup as attributes of /,
// and per run a group /runs/NNNN with its summary as attributes, phase_times[iteration][rank]
// [phase] (seconds; phase names in the file's `phases` attribute) and wall[rank].
#include <pcoll/pcoll.h>

#include <cstdio>
#include <iomanip>
#include <sstream>
#include <stdexcept>

#include "report.hpp"

#ifdef PCOLL_CG_HAVE_HDF5
#include <hdf5.h>

#include "../common/h5_attrs.hpp"
#include "../common/phase_record.hpp"
#endif

namespace pcoll::cg {

#ifdef PCOLL_CG_HAVE_HDF5

using apps::attr_double;
using apps::attr_int;
using apps::attr_string;
using apps::dataset_f64;

void write_results_h5(const std::string &path, const RunSetup &s,
                      const std::vector<RunRecord> &runs) {
  const hid_t f = H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  if (f < 0) throw std::runtime_error("HDF5: cannot create " + path);
  attr_string(f, "application", "pcoll cg");
  attr_string(f, "pcoll_version", PCOLL_Version());
  attr_string(f, "deck", s.deck);
  attr_string(f, "solver", s.solver);
  attr_string(f, "pc", s.pc);
  attr_string(f, "reduction", s.reduction);
  attr_int(f, "overlap", s.overlap ? 1 : 0);
  attr_string(f, "command_line", s.command_line);
  attr_int(f, "ranks", s.ranks);
  attr_int(f, "threads", s.threads);
  for (int a = 0; a < 3; ++a) {
    attr_int(f, (std::string("n") + "xyz"[a]).c_str(), s.global[a]);
    attr_int(f, (std::string("p") + "xyz"[a]).c_str(), s.dims[a]);
  }
  attr_double(f, "tol", s.tol);
  attr_string(f, "phases", apps::joined_names(s.phases));
  const hid_t all = H5Gcreate2(f, "runs", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  for (std::size_t i = 0; i < runs.size(); ++i) {
    const RunRecord &r = runs[i];
    char name[32];
    std::snprintf(name, sizeof name, "%04zu", i);
    const hid_t g = H5Gcreate2(all, name, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    attr_string(g, "algorithm", r.algorithm);
    attr_string(g, "served", r.served);
    attr_int(g, "rep", r.rep);
    attr_int(g, "warmup", r.warmup ? 1 : 0);
    attr_int(g, "iterations", r.iterations);
    attr_int(g, "converged", r.converged ? 1 : 0);
    attr_double(g, "rel_residual", r.rel_residual);
    attr_double(g, "true_rel_residual", r.true_rel_residual);
    attr_double(g, "err_max", r.err_max);
    attr_double(g, "err_l2", r.err_l2);
    std::ostringstream dg;
    dg << std::hex << std::setw(16) << std::setfill('0') << r.digest;
    attr_string(g, "digest", dg.str());
    attr_int(g, "critical_rank", r.critical_rank);
    attr_double(g, "total_s", r.total);
    attr_double(g, "other_s", r.other);
    for (std::size_t p = 0; p < s.phases.size(); ++p)
      attr_double(g, (s.phases[p] + "_s").c_str(), r.phase[p]);
    apps::dataset_phase_times(g, r.per_iteration, r.iterations, s.ranks, s.phases.size());
    const hsize_t dims1[1] = {static_cast<hsize_t>(s.ranks)};
    dataset_f64(g, "wall", r.wall, 1, dims1);
    H5Gclose(g);
  }
  H5Gclose(all);
  H5Fclose(f);
}

#else

void write_results_h5(const std::string &, const RunSetup &, const std::vector<RunRecord> &) {
  throw std::runtime_error("--output needs HDF5; cg was built without it");
}

#endif

}  // namespace pcoll::cg
