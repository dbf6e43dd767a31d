// One call as this rank sees it: its shape (select.hpp: the type signature every rank shares)
// and how this rank's buffers map onto the packed form the plans work on.
#pragma once

#include <mpi.h>

#include <cstddef>

#include "select.hpp"

namespace pcoll {

// One side of a call (what is sent, what is received) in the user's terms.
struct Side {
  int count = 0;  // elements of dt (the whole buffer the side covers)
  MPI_Datatype dt = MPI_DATATYPE_NULL;
  bool as_is = true;      // the buffer is already in packed form: no pack or unpack
  std::size_t bytes = 0;  // count * MPI_Type_size(dt): its packed size
};

struct Signature {
  CallShape shape;
  Side send, recv;  // send is unused with MPI_IN_PLACE (the input then lives in recv)
  // Reductions: the type the reducer works in (a predefined type; a user op's own datatype).
  MPI_Datatype unit_type = MPI_BYTE;
  // A reduction with a predefined op on a derived datatype: the vendor path calls the vendor
  // with the signature's (units, unit_type), because some MPI libraries (Open MPI 4.1) refuse
  // predefined ops on derived datatypes, and ranks may even pass different datatypes.
  bool vendor_in_units = false;
  bool predefined_unit = true;  // unit_type is a predefined type (its reducer may be cached)
  // What the call writes of the receive side (in place the side holds the input too, and
  // reduce_scatter_block writes only its first block), in the user's elements and bytes.
  int out_count = 0;
  std::size_t out_bytes = 0;
  std::size_t type_size = 0;  // of the receive datatype, for the trace
  // The reproducible mode (PCOLL_REPRODUCIBLE=on, binned.hpp) for an MPI_SUM of floating-point
  // values: the plan (or the vendor) reduces binned sums of `scalar` values (MPI_DOUBLE or
  // MPI_FLOAT; complex bases count 2 per value) with the binned op; the user's values are
  // `base`. Null scalar: off. `binned_note`: why the mode left this reduction as it is.
  struct {
    MPI_Datatype scalar = MPI_DATATYPE_NULL;
    MPI_Datatype base = MPI_DATATYPE_NULL;
    std::size_t scalar_size = 0;
    bool on() const { return scalar != MPI_DATATYPE_NULL; }
  } binned;
  const char *binned_note = nullptr;
  // Units per element of the user's datatype (reductions: base values, binned sums), and for
  // reduce_scatter the whole input and this rank's block in units.
  std::size_t units_per_elem = 1;
  std::size_t blocks_in_units = 0, block_out_units = 0;
  bool packs() const { return !send.as_is || !recv.as_is; }
};

}  // namespace pcoll
