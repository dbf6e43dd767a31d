// Datatypes by their type signature: what pcoll needs to know of an MPI datatype to move and
// reduce its data without depending on the local layout.
//
// MPI matches type signatures across ranks, not datatypes: the root of a broadcast may send
// 1 x vector(100 ints, stride 2) while the others receive 100 x MPI_INT. pcoll therefore plans
// every call on the packed form of its data (the typemap's bytes in typemap order, which is
// what a type signature describes and what MPI_Pack writes), and decides only on that form's
// size and base type, which every rank computes alike. A rank whose buffer is not already in
// packed form (gaps, reordered fields, a non-zero first displacement, MPI_BOTTOM with absolute
// addresses) packs into scratch memory before the plan and unpacks after it.
#pragma once

#include <mpi.h>

#include <cstddef>

namespace pcoll {

struct TypeInfo {
  std::size_t size = 0;  // bytes of data per element (MPI_Type_size): the signature's size
  MPI_Aint extent = 0;   // stride between consecutive elements in memory
  // The element's data lies in typemap order at displacements [0, size): one element in memory
  // is its packed form. `dense` adds extent == size, so that any count of elements is.
  bool packed_order = false;
  bool dense = false;
  // The one predefined type every basic element of the typemap has (reductions work in it), or
  // MPI_DATATYPE_NULL when the typemap mixes types or holds one pcoll cannot walk (Fortran
  // parameterised types). Pair types (MPI_DOUBLE_INT, ...) are their own base.
  MPI_Datatype base = MPI_DATATYPE_NULL;
  std::size_t base_size = 0;      // MPI_Type_size(base): one base value in packed form
  MPI_Aint base_extent = 0;       // one base value in an array of them (pair types: padded)
  std::size_t base_per_elem = 0;  // size / base_size
  bool predefined = false;        // the handle itself is a predefined (named) type

  // `count` elements starting at the buffer address are already in packed form.
  bool packed_as_is(long long count) const { return dense || (count <= 1 && packed_order); }
};

// The description of `dt`, computed once per datatype: predefined types in a process table,
// derived ones in an attribute cached on the datatype itself (freed with it, so a handle that
// MPI reuses for a new type can never find a stale description).
const TypeInfo &describe_type(MPI_Datatype dt);

// Packs `count` elements of `dt` at `buf` into `out` (count * size bytes) and back, through the
// MPI library's own datatype engine; `comm` is any communicator of this process.
int pack(const void *buf, int count, MPI_Datatype dt, void *out, std::size_t out_bytes,
         MPI_Comm comm);
int unpack(const void *in, std::size_t in_bytes, void *buf, int count, MPI_Datatype dt,
           MPI_Comm comm);

// Converts `count` elements of `dt` at `buf` into an array of `units` values of `base` as MPI
// lays such an array out in memory (its extent: pair types have padding), at `dst`, and back.
// `tmp` holds units * size(base) bytes; it is used only when the base type has padding.
int to_base_array(const void *buf, int count, MPI_Datatype dt, void *dst, int units,
                  MPI_Datatype base, void *tmp, MPI_Comm comm);
int from_base_array(const void *src, int units, MPI_Datatype base, void *buf, int count,
                    MPI_Datatype dt, void *tmp, MPI_Comm comm);

// Whether the MPI library's MPI_Pack writes the bare typemap bytes (no header, no conversion),
// which pcoll's packed form assumes; checked once per process. Empty when it does, else why not.
const char *packing_problem();

}  // namespace pcoll
