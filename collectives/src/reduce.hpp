// Local reduction: dst = src (op) dst or dst = dst (op) src, unit by unit.
//
// A unit is what the call's signature is reduced in (api.cpp): a value of the base predefined
// type for MPI's predefined ops (a derived datatype is reduced by its base type, on its packed
// form), or one element of the user's datatype for a user-defined op (which MPI calls with the
// user's datatype). Predefined (type, op) pairs that MPI allows get a vectorisable loop of our
// own (signed integer sums and products wrap like two's complement instead of invoking C++
// undefined behaviour; this matches what MPI libraries compute), and MPI_MINLOC / MPI_MAXLOC on
// the pair types work on the packed pairs (value, then int index) whatever padding the type
// has in memory. Everything else (user ops, complex types, long double) goes through
// MPI_Reduce_local, which computes inoutbuf = inbuf (op) inoutbuf; for the right-operand
// orientation with a user op we compute into src and copy back, so non-commutative user ops
// are applied in rank order.
#pragma once

#include <mpi.h>

#include <cstddef>

namespace pcoll {

using KernelFn = void (*)(const void *src, void *dst, std::size_t n, bool src_is_left);

class Reducer {
 public:
  // `unit`: the type of one unit (a predefined type, or a user op's dense datatype);
  // `unit_bytes`: its packed size.
  Reducer(MPI_Datatype unit, std::size_t unit_bytes, MPI_Op op);
  // Reduces n units. May overwrite src when !src_is_left and no fast path exists for a
  // non-commutative op (the plan verifier treats src as clobbered then).
  int apply(const void *src, void *dst, std::size_t n, bool src_is_left) const;

 private:
  MPI_Datatype unit_;
  MPI_Op op_;
  bool predefined_op_;
  std::size_t unit_bytes_;
  KernelFn kernel_ = nullptr;
};

// MPI's predefined reduction operations (all commutative).
bool is_predefined_op(MPI_Op op);

// The fast kernel for a predefined (type, op) pair, or nullptr.
KernelFn find_kernel(MPI_Datatype base, MPI_Op op);

}  // namespace pcoll
