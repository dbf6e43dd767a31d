// Where each rank's part of the 3-D grid lives at each stage of the distributed FFT, and what a
// global transpose between two stages sends to and receives from each peer. Pure functions of
// (grid, process grid, rank): no MPI, no FFTW, so they are tested for every P without mpiexec
// (tests/apps/fft3d_layout_test.cpp) as heFFTe tests its plan logic.
//
// The global grid is N0 x N1 x N2, axis 2 fastest in the input (row-major, as FFTW's).
// Decompositions (the process grid p0 x p1, rank r = r0 * p1 + r1):
//  - slab   (p0 = P, p1 = 1): input  [n0][N1][N2] (axis 0 split over P), 2-D FFT on axes 1, 2;
//                              output [N0][m1][N2] (axis 1 split over P), FFT on axis 0.
//  - pencil (p0 x p1 from MPI_Dims_create): input [n0][n1][N2] (axis 0 over p0, axis 1 over p1),
//            FFT on axis 2; middle [n0][N1][m2] (axis 2 over p1), FFT on axis 1; output
//            [N0][m1][m2] (axis 1 over p0), FFT on axis 0.
// The output is "transposed" (distributed over axis 1, as FFTW_MPI_TRANSPOSED_OUT's): the
// backward transform starts from it and returns the input layout, so no transform pays for a
// transpose back. Every stage keeps the row-major axis order: FFTW runs the strided transforms
// along axes 0 and 1 as vector loops over the contiguous rows, and into the output layout the
// blocks from the peers arrive as consecutive runs, so the received message IS the output field
// (no unpack forward) and the backward message IS the output field (no pack backward); see
// in_place_blocks. Unpacking into rows contiguous along the transformed axis instead was
// measured slower here (128^3, P = 4: local FFT 27 vs 13 ms and unpack 3..23 vs 1..4 ms).
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace pcoll::fft3d {

enum class Decomp { slab, pencil };
const char *decomp_name(Decomp d);

// Rows [lo, lo + n) of an axis of length `len` split over `parts`: the first len % parts parts
// get one more. Every part is non-empty when len >= parts.
struct Range {
  int lo = 0, n = 0;
};
Range split(int len, int parts, int index);

// A rank's box of the global grid at one stage, and its memory order: order[0] is the slowest
// axis, order[2] the fastest (contiguous). Local element (g0, g1, g2) (global indices inside the
// box) is at sum over a of (g[a] - lo[a]) * stride(a).
struct Layout {
  std::array<int, 3> lo{0, 0, 0}, n{0, 0, 0};
  std::array<int, 3> order{0, 1, 2};
  std::int64_t volume() const { return std::int64_t(n[0]) * n[1] * n[2]; }
  std::int64_t stride(int axis) const;
  bool contains(const std::array<int, 3> &g) const;
  std::int64_t index(const std::array<int, 3> &g) const;  // local offset of global g
};

// The process grid: p0 x p1 = P. Slab: (P, 1). Pencil: the caller's MPI_Dims_create(P, 2).
struct ProcGrid {
  int p0 = 1, p1 = 1;
};

// The three stage layouts of rank r (slab: in and out only; mid is unused and equals in).
struct StageLayouts {
  Layout in, mid, out;
};
StageLayouts stage_layouts(const std::array<int, 3> &grid, ProcGrid pg, Decomp d, int rank);

// "" if (grid, process grid) is usable, else why not (names the sizes): every rank must own a
// non-empty box at every stage.
std::string check_grid(const std::array<int, 3> &grid, ProcGrid pg, Decomp d);

// One peer's share of a global transpose, in elements. The message holds the intersection box
// of the sender's source layout and the receiver's destination layout, in the SENDER's memory
// order (the layout every member has at that stage).
struct Block {
  std::array<int, 3> lo{0, 0, 0}, n{0, 0, 0};  // global box
  std::int64_t volume() const { return std::int64_t(n[0]) * n[1] * n[2]; }
};
struct Exchange {
  std::vector<Block> send, recv;             // per peer of the sub-communicator
  std::vector<std::int64_t> sdispl, rdispl;  // element offsets of each peer in the buffers
  std::int64_t send_total = 0, recv_total = 0;
  bool even = true;  // every block between members has the same volume: PCOLL_Alltoall
};
// from[j] / to[j]: member j's source / destination layout, j = rank in the sub-communicator.
Exchange plan_exchange(const std::vector<Layout> &from, const std::vector<Layout> &to, int me);

// The smallest and largest block volume (elements) that a member sends a member, over the
// members' source layouts `from` and destination layouts `to` (all ranks of a communicator, or
// one sub-communicator's). O(members), not O(members^2): on each axis of these stage layouts
// either one side spans the whole axis or both have the same range, so the overlap of from_i and
// to_j on axis a is min(from_i.n[a], to_j.n[a]), and the per-axis extremes are reached by one
// pair (the last ranks of each split). tests/apps/fft3d checks it against every pair.
struct BlockRange {
  std::int64_t min = 0, max = 0;
};
BlockRange block_range(const std::vector<Layout> &from, const std::vector<Layout> &to);

// True when every block j (in memory order `order`, the sender's) is one contiguous run of
// `field` starting exactly at displ[j]: the message buffer then equals the field, and the
// transpose uses the field itself instead of packing or unpacking (a copy onto itself).
bool in_place_blocks(const std::vector<Block> &blocks, const std::vector<std::int64_t> &displ,
                     const std::array<int, 3> &order, const Layout &field);

// The block's extents and strides for the kernels, in `order` (the sender's memory order).
struct BlockCopy {
  std::int64_t extent[3];
  std::int64_t field_offset, field_stride[3];  // in the layout `field`
};
BlockCopy block_copy(const Block &b, const std::array<int, 3> &order, const Layout &field);

// 5 N log2 N, the usual flop count of one complex FFT of N = N0 N1 N2 points.
double fft_flops(const std::array<int, 3> &grid);

}  // namespace pcoll::fft3d
