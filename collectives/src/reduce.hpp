// Local reduction: dst = src (op) dst or dst = dst (op) src, element-wise.
//
// Predefined (type, op) pairs that MPI allows get a vectorisable loop of our own (signed integer
// sums and products wrap like two's complement instead of invoking C++ undefined behaviour; this
// matches what MPI libraries compute). Everything else (user ops, MINLOC/MAXLOC pairs, complex
// types, derived types without a single base type) goes through MPI_Reduce_local, which computes
// inoutbuf = inbuf (op) inoutbuf; for the right-operand orientation with a user op we compute
// into src and copy back, so non-commutative user ops are applied in rank order.
#pragma once

#include <mpi.h>

#include <cstddef>

namespace pcoll {

// What pcoll knows about a datatype, resolved once per call.
struct TypeInfo {
  std::size_t size = 0;     // bytes of data per element (MPI_Type_size)
  bool contiguous = false;  // data is one dense block: size == extent == true extent, lb == 0
  MPI_Datatype base = MPI_DATATYPE_NULL;  // predefined type the element is made of, if known
  int base_per_elem = 0;                  // how many `base` values one element holds
  bool predefined = false;                // the handle itself is a predefined type
};

TypeInfo describe_type(MPI_Datatype dt);

using KernelFn = void (*)(const void *src, void *dst, std::size_t n, bool src_is_left);

class Reducer {
 public:
  Reducer(MPI_Datatype dt, MPI_Op op, const TypeInfo &ti);
  // Reduces n elements of the user's datatype. May overwrite src when !src_is_left and no fast
  // path exists for a non-commutative op (the plan verifier treats src as clobbered then).
  int apply(const void *src, void *dst, std::size_t n, bool src_is_left) const;

 private:
  MPI_Datatype dt_;
  MPI_Op op_;
  bool predefined_op_;
  std::size_t elem_bytes_;
  int base_per_elem_;
  KernelFn kernel_ = nullptr;
};

// The fast kernel for a predefined (type, op) pair, or nullptr.
KernelFn find_kernel(MPI_Datatype base, MPI_Op op);

}  // namespace pcoll
