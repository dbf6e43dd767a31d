// Binned sums: floating-point addition made exactly associative and commutative, so that a sum
// has the same bits whatever the order of its additions (pcoll's reproducible mode,
// PCOLL_REPRODUCIBLE=on, and the PCOLL_Binned type of pcoll.h).
//
// The idea is Demmel and Nguyen's pre-rounded ("binned", "indexed") summation ("Fast
// Reproducible Floating-Point Summation", ARITH 2013; "Parallel Reproducible Summation", IEEE
// Transactions on Computers 2015; the ReproBLAS library): every addend is cut along a grid of
// exponent boundaries fixed for all numbers, the pieces are added exactly, and only pieces on
// the top K bins of the grid are kept, where "top" is set by the largest addend of the whole
// set. Which pieces are kept therefore depends on the set alone, never on the order, and the
// kept pieces add exactly: the result is a function of the set.
//
// pcoll's own encoding (not ReproBLAS's): the bins are 64 bits wide on the grid of every
// double's bits, bin b holding bit weights 2^(64 b - 1074) .. 2^(64 b - 1011) (bin 0 starts at
// the smallest subnormal, 2^-1074; the largest finite double ends in bin 32). A double's 53
// significant bits fall into at most two adjacent bins. A sum keeps K = 3 bins, each a signed
// 128-bit integer (the pieces, +-(2^64 - 1) at most, add exactly; 2^63 addends cannot
// overflow it), with the index of its top bin, and flags for NaN, +-inf and signed zeros:
//   * the value is rounded once, to nearest even, from the exact sum of the kept pieces;
//   * error: every addend loses less than 2^(64 (top - 2) - 1074) <= 2^-128 x max|x|, so
//     |result - exact| <= n x 2^-128 x max|x_i| + half an ulp of the result (ReproBLAS's
//     default, K = 3 bins of 40 bits in doubles, promises about n x 2^-80 x max|x_i|); a set
//     whose addends all lie within 128 bits of its largest is summed exactly, then rounded;
//   * inf and NaN as IEEE addition gives them: NaN if any addend is NaN or both infinities
//     occur, else +-inf if one occurs (a quiet NaN with a fixed bit pattern: the payload is
//     not carried). Partial sums never overflow, so a set whose exact sum is finite sums to a
//     finite value even where a plain left-to-right sum would overflow;
//   * -0.0 when every addend is -0.0, else +0.0 for an exact zero (IEEE's rule);
//   * a float result is rounded from the exact sum directly, not through a double.
// Cost: 56 bytes per value (7 doubles) on the wire, a few integer operations per merge; a
// deposit of many addends (add_n, dot_n) runs a vector kernel where the CPU has AVX2 or AVX-512
// (binned_kernels.hpp: the same bits as one add() after another), about 0.7-1.5 ns per addend
// with AVX-512 against 6-7 ns element by element (collprobe --binned-costs).
#pragma once

#include <mpi.h>

#include <pcoll/pcoll.h>

#include <cstddef>

namespace pcoll::binned {

constexpr int kBins = 3;  // K: bins kept
constexpr int kWidth = 64;  // bits per bin
static_assert(sizeof(PCOLL_Binned) == 56, "PCOLL_Binned: 8 bytes of header, K x 16 of bins");

void clear(PCOLL_Binned &b);
void add(PCOLL_Binned &b, double x);
void merge(const PCOLL_Binned &src, PCOLL_Binned &dst);  // dst += src
// n adds at once (the same state as n calls of add): x[0..n), and the products x[i] * y[i]
// (each rounded once, as a double product is).
void add_n(PCOLL_Binned &b, const double *x, std::size_t n);
void dot_n(PCOLL_Binned &b, const double *x, const double *y, std::size_t n);
double value(const PCOLL_Binned &b);
float value_float(const PCOLL_Binned &b);

// Arrays: out[i] = the sum of the single value x[i]; x[i] = value(b[i]).
void from_doubles(const double *x, std::size_t n, PCOLL_Binned *out);
void from_floats(const float *x, std::size_t n, PCOLL_Binned *out);
void to_doubles(const PCOLL_Binned *b, std::size_t n, double *x);
void to_floats(const PCOLL_Binned *b, std::size_t n, float *x);
// dst[i] += src[i]: the reducer kernel of the binned op (commutative: operand order is moot).
void reduce(const void *src, void *dst, std::size_t n, bool src_is_left);

// The deposit kernel add_n and dot_n run on this CPU, for reports ("avx512", "avx2", "portable").
const char *kernel_name();

// The MPI datatype (56 contiguous bytes) and commutative op of binned sums, created at the
// first call (MPI must be initialised) and kept until the process ends.
MPI_Datatype mpi_type();
MPI_Op mpi_op();
// Whether `op` is the binned op (false until it exists: never creates it).
bool is_op(MPI_Op op);

// The scalar type a reproducible MPI_SUM works in for a predefined base type: MPI_DOUBLE or
// MPI_FLOAT, with `parts` = 2 for complex types (real and imaginary parts summed apart);
// MPI_DATATYPE_NULL for types the mode does not cover.
MPI_Datatype scalar_of(MPI_Datatype base, int *parts);

}  // namespace pcoll::binned
