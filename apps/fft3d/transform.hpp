// The distributed 3-D complex-to-complex FFT: local FFTW transforms (threaded, one plan per
// stage and direction, made once), pack/unpack on Kokkos (kernels/fft_pack.hpp) and global
// transposes through PCOLL_Alltoall (every block the same size) or PCOLL_Alltoallv (a grid that
// does not divide evenly), so the all-to-all algorithm chosen in pcoll changes only the transposes.
// Stage layouts: layout.hpp. Unnormalised, as FFTW: backward(forward(x)) = N0 N1 N2 x.
// Overlap (set_overlap(K), K > 1): each transpose is cut into K pieces along the one axis it
// leaves in place (slab: axis 2; pencil: axis 0 on the rows, axis 2 on the columns), each piece
// its own PCOLL_Ialltoall(v); the local FFTs of the stage before run piece by piece and start
// each piece's exchange as soon as it is packed, and those of the stage after run on each piece
// as it arrives, testing the pieces in flight between FFTs (pcoll's and most MPIs' nonblocking
// collectives move on only inside MPI calls). A stage whose FFT spans that axis (the slab's 2-D
// first stage) or reads the real input (r2c's first stage) runs whole before or after.
// Real-to-complex (Kind::r2c): the first stage is FFTW's r2c along axis 2 (with axis 1 for
// slabs), out of a real buffer, and every later stage is the complex transform of the
// N0 x N1 x (N2/2+1) half-spectrum: the distributed part is the c2c code on that grid.
#pragma once

#include <mpi.h>

#include <array>
#include <complex>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "layout.hpp"

namespace pcoll::fft3d {

using Complex = std::complex<double>;

enum class Planner { estimate, measure, patient };
enum class Kind { c2c, r2c };
const char *kind_name(Kind k);
const char *planner_name(Planner p);
unsigned planner_flags(Planner p);  // FFTW_ESTIMATE, ...

// Makes FFTW's planner use `threads` OpenMP threads for the plans made after it (called once per
// process before any plan; later calls only change the count).
void fftw_use_threads(int threads);

// Seconds spent in each part of the transforms since the last reset (this rank).
struct Times {
  double fft = 0, pack = 0, alltoall = 0, unpack = 0;
  double total() const { return fft + pack + alltoall + unpack; }
};

// One global transpose: its communicator, peers, and bytes per destination (what pcoll's
// small-message dispatch is decided on).
struct TransposeInfo {
  std::string where;       // "all ranks" (slab), "rows" or "columns" (pencil)
  std::string collective;  // "alltoall" (even blocks) or "alltoallv"
  int peers = 1;
  std::int64_t min_bytes = 0, max_bytes = 0;  // per destination, over all pairs of members
  std::string served;                         // the algorithm that served the last call here
};

class DistributedFft {
 public:
  // Collective over comm. Throws std::invalid_argument (with check_grid's message) for a grid
  // the process grid cannot split, std::runtime_error on an MPI or FFTW failure.
  DistributedFft(MPI_Comm comm, const std::array<int, 3> &grid, Decomp decomp, Planner planner,
                 Kind kind = Kind::c2c);
  ~DistributedFft();
  DistributedFft(const DistributedFft &) = delete;
  DistributedFft &operator=(const DistributedFft &) = delete;

  // The local field: laid out as input() before forward() and after backward() (c2c), as
  // output() after forward(). Sized for the largest stage; the first volume() elements are the
  // field. The pointer may change in forward() and backward() (a transpose whose received
  // message is already the next layout swaps buffers instead of copying): call data() again.
  // r2c: the real input is real_data(), laid out as real_input() (the input box with all
  // N2 points of axis 2); forward() reads it and leaves the half-spectrum in data(), laid out as
  // output() on spectrum_grid(); backward() writes real_data() back.
  Complex *data() { return field_; }
  const Complex *data() const { return field_; }
  double *real_data() { return real_; }
  const double *real_data() const { return real_; }
  const Layout &input() const { return layouts_.in; }
  const Layout &real_input() const { return real_in_; }
  const Layout &output() const { return layouts_.out; }
  const std::array<int, 3> &grid() const { return grid_; }
  // The grid of the complex stages: grid() for c2c, N0 x N1 x (N2/2+1) for r2c.
  const std::array<int, 3> &spectrum_grid() const { return cgrid_; }
  Kind kind() const { return kind_; }
  Decomp decomp() const { return decomp_; }
  ProcGrid proc_grid() const { return pg_; }

  void forward();
  void backward();

  // SMPI builds: charge `seconds` of local-FFT computation per transform to the simulated rank,
  // shared over the stages by their flops (measured natively for the same grid and P; run the
  // simulation with smpi/simulate-computation:no so the host's own time does not count twice).
  // Ignored in native builds.
  void set_injected_fft(double seconds) { injected_fft_ = seconds; }

  // Overlap every transpose with the local FFTs around it in `chunks` pieces (1: off, the
  // blocking transposes; more pieces than the axis has rows: one per row). Collective over the
  // communicator (every rank must pass the same value); makes the pieces' FFTW plans (with the
  // planner given to the constructor, on a scratch buffer: the field is left alone) and one more
  // field-sized buffer. Throws std::invalid_argument for chunks < 1.
  void set_overlap(int chunks);
  int overlap() const { return overlap_; }

  const Times &times() const { return times_; }
  void reset_times() { times_ = Times{}; }
  const std::vector<TransposeInfo> &transposes() const { return info_; }
  // Every communicator a transpose runs on (pcoll configuration is per communicator, so an
  // algorithm override must be pushed on each).
  std::vector<MPI_Comm> comms() const;

 private:
  struct Transpose;
  struct Plans;
  struct ChunkPlans;
  void fft(int stage, bool forward);
  void transpose(int index, bool forward);
  void run(bool forward);
  // One transpose in pieces (overlap): FFTs of stage `before` per piece when fft_before, of
  // stage `after` per piece when fft_after.
  void pipelined_transpose(int index, bool forward, int before, bool fft_before, int after,
                           bool fft_after);
  bool chunkable(int stage, int axis) const;  // the stage's FFT can run piece by piece on axis
  void fft_piece(int stage, bool forward, int axis, int lo, int n);
  const Layout &stage_layout(int stage) const;
  const std::vector<int> &stage_axes(int stage) const;

  MPI_Comm comm_, row_ = MPI_COMM_NULL, col_ = MPI_COMM_NULL;
  std::array<int, 3> grid_, cgrid_;
  Decomp decomp_;
  Kind kind_;
  Layout real_in_;
  double *real_ = nullptr;
  ProcGrid pg_;
  StageLayouts layouts_;
  Complex *field_ = nullptr, *send_ = nullptr, *recv_ = nullptr;
  std::vector<std::unique_ptr<Transpose>> transposes_;
  std::unique_ptr<Plans> plans_;
  std::vector<TransposeInfo> info_;
  std::vector<double> stage_share_;  // each stage's part of the local FFT flops
  std::vector<const Layout *> stage_layouts_;  // each stage's layout (of layouts_)
  std::vector<std::vector<int>> stage_axes_;     // the axes each stage transforms
  unsigned flags_ = 0;                        // FFTW planner flags
  double injected_fft_ = 0;
  int overlap_ = 1;
  Complex *spare_ = nullptr;  // overlap: the next stage's field while the pieces arrive
  std::unique_ptr<ChunkPlans> chunk_plans_;
  Times times_;
};

}  // namespace pcoll::fft3d
