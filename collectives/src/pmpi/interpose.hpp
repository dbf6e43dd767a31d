// libpcoll_mpi.so: pcoll under unmodified MPI programs (LD_PRELOAD, or linked before -lmpi).
//
// It defines both MPI_<Coll> and PMPI_<Coll> for every collective pcoll implements and hands
// each call to PCOLL_<Coll>. Defining the PMPI_ names too puts pcoll *below* any PMPI tool the
// program uses (the tool's MPI_Allreduce calls PMPI_Allreduce, which is ours), so the tool sees
// every call exactly once, and it is where Open MPI 4.1's Fortran bindings enter C: mpif.h's and
// `use mpi`'s mpi_allreduce_ and `use mpi_f08`'s mpi_allreduce_f08_ (through ompi_allreduce_f)
// convert the handles and MPI_IN_PLACE and call PMPI_Allreduce, never MPI_Allreduce.
//
// pcoll's own calls to PMPI_<Coll> (its vendor path, the configuration agreement check, the
// trace writer) arrive here too; the Gate below sends them, and every call made while this
// thread is already inside pcoll, to the vendor's PMPI_<Coll>, found with dlsym(RTLD_NEXT).
// So nothing recurses and nothing is counted twice. The collectives HDF5 and MPI-IO make while
// pcoll writes its trace (trace::writing()) also go straight to the vendor.
#pragma once

#include <mpi.h>

namespace pcoll::pmpi {

// The vendor MPI's definition of `name` (a PMPI_ function): the next one after this library in
// the dynamic linker's search order. `self` is this library's own definition, which the answer
// must not be. Stops the program with a message when there is none.
void *vendor_symbol(const char *name, void *self);

// PCOLL_DISABLE=1: every intercepted call is a pure pass-through.
bool disabled();

// Decides whether the intercepted call now starting is served by pcoll. It is not (pure
// pass-through to the vendor, nothing traced) when: this thread is already inside pcoll or is
// pcoll's progress thread (engine.hpp), pcoll is writing its trace, PCOLL_DISABLE=1, MPI is not initialised (or finalised), or the program
// runs under MPI_THREAD_MULTIPLE with PCOLL_THREAD_MULTIPLE=vendor. With the default
// PCOLL_THREAD_MULTIPLE=check, a second thread entering while another is inside stops the
// program with a message: pcoll's state is per process, and a race is never an option.
class Gate {
 public:
  Gate();
  ~Gate();
  Gate(const Gate &) = delete;
  Gate &operator=(const Gate &) = delete;
  bool serve() const { return serve_; }

 private:
  bool serve_ = false;
};

}  // namespace pcoll::pmpi

// The vendor's PMPI_<fn>, looked up once (thread-safe static initialisation).
#define PCOLL_VENDOR(fn)                                           \
  static const auto vendor_##fn = reinterpret_cast<decltype(&fn)>( \
      ::pcoll::pmpi::vendor_symbol(#fn, reinterpret_cast<void *>(&fn)))
