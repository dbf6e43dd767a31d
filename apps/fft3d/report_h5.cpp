// The HDF5 results file of the fft3d driver (rank 0, serial HDF5); see report.hpp.
#include <pcoll/pcoll.h>

#include <algorithm>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <utility>

#include "layout.hpp"
#include "report.hpp"

#ifdef PCOLL_FFT3D_HAVE_HDF5
#include <hdf5.h>

#include "../common/h5_attrs.hpp"
#endif

namespace pcoll::fft3d {

#ifdef PCOLL_FFT3D_HAVE_HDF5

using apps::attr_double;
using apps::attr_string;

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
  attr_double(f, "ranks", s.ranks);
  attr_double(f, "threads", s.threads);
  attr_double(f, "n0", s.grid[0]);
  attr_double(f, "n1", s.grid[1]);
  attr_double(f, "n2", s.grid[2]);
  attr_double(f, "p0", s.p0);
  attr_double(f, "p1", s.p1);
  attr_double(f, "pairwise_threshold", double(s.pairwise_threshold));
  std::string overlaps;
  for (int k : s.overlap) overlaps += (overlaps.empty() ? "" : ",") + std::to_string(k);
  attr_string(f, "overlap", overlaps);  // the piece counts compared
  attr_double(f, "flops_per_transform", s.flops());
  attr_double(f, "spectrum_error", s.spectrum_error);
  attr_double(f, "roundtrip_error", s.roundtrip_error);
  attr_double(f, "fftw_difference", s.fftw_difference);
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
    attr_double(g, "overlap", r.overlap);
    attr_double(g, "rep", r.rep);
    attr_double(g, "warmup", r.warmup ? 1 : 0);
    attr_double(g, "bits_ok", r.bits_ok ? 1 : 0);
    for (const auto &[key, v] : {std::pair{"time_s", r.time},
                                 {"fft_s", r.fft},
                                 {"pack_s", r.pack},
                                 {"alltoall_s", r.alltoall},
                                 {"unpack_s", r.unpack},
                                 {"other_s", r.other}})
      attr_double(g, key, v);
    // split[transform][rank][wall, fft, pack, alltoall, unpack], seconds; transforms alternate
    // forward, backward.
    apps::dataset_phase_times(g, r.split, r.split.size() / (std::size_t(s.ranks) * kSplit), s.ranks,
                              kSplit, "split");
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
