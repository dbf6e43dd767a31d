// The intercepted collectives of libpcoll_mpi.so, generated from collectives.def: for every
// collective pcoll implements, its blocking (MPI_<Coll>), nonblocking (MPI_I<coll>) and
// persistent forms, each under its MPI_ and PMPI_ names. Persistent: MPI 4.0's MPI_<Coll>_init
// where mpi.h declares them, and Open MPI 4.1's MPIX_<Coll>_init (its pcollreq extension,
// mpi-ext.h), which is what programs built with Open MPI 4.1 call.
//
// Each passes the Gate (interpose.hpp) to PCOLL_<form> or, unchanged, to the vendor's
// PMPI_<form>. pcoll itself decides everything else: the algorithm (PCOLL_<COLL>), and calls it
// cannot serve (non-contiguous types, inter-communicators, ...) go to the vendor under
// PCOLL_FALLBACK and are traced as "vendor (fallback: reason)".
#include <pcoll/pcoll.h>

#if defined(__has_include)
#if __has_include(<mpi-ext.h>)
#include <mpi-ext.h>
#endif
#endif

#include "pmpi/interpose.hpp"

using pcoll::pmpi::Gate;

// One form: pcoll's when the Gate lets it through. Both names: MPI_ for programs, PMPI_ for PMPI
// tools and Open MPI's Fortran bindings.
#define PCOLL_SERVE_AS(Prefix, Name, Params, Args)                                     \
  namespace {                                                                          \
  int serve_##Prefix##Name Params {                                                    \
    PCOLL_VENDOR(P##Prefix##_##Name);                                                  \
    const Gate gate;                                                                   \
    return gate.serve() ? PCOLL_##Name Args : vendor_P##Prefix##_##Name Args;          \
  }                                                                                    \
  }                                                                                    \
  extern "C" int Prefix##_##Name Params { return serve_##Prefix##Name Args; }          \
  extern "C" int P##Prefix##_##Name Params { return serve_##Prefix##Name Args; }

#define PCOLL_UNPAREN(...) __VA_ARGS__

// --- blocking and nonblocking ----------------------------------------------------------------------
#define PCOLL_COLLECTIVE(Name, name, Params, Args)                                   \
  PCOLL_SERVE_AS(MPI, Name, Params, Args)                                            \
  PCOLL_SERVE_AS(MPI, I##name, (PCOLL_UNPAREN Params, MPI_Request * request),        \
                 (PCOLL_UNPAREN Args, request))
#include "collectives.def"

// --- persistent ------------------------------------------------------------------------------------
#define PCOLL_PERSISTENT_AS(Prefix, Name, Params, Args)                                          \
  PCOLL_SERVE_AS(Prefix, Name##_init, (PCOLL_UNPAREN Params, MPI_Info info, MPI_Request * request), \
                 (PCOLL_UNPAREN Args, info, request))
#if MPI_VERSION >= 4
#define PCOLL_COLLECTIVE(Name, name, Params, Args) PCOLL_PERSISTENT_AS(MPI, Name, Params, Args)
#include "collectives.def"
#endif
#if defined(OMPI_HAVE_MPI_EXT_PCOLLREQ) && OMPI_HAVE_MPI_EXT_PCOLLREQ
#define PCOLL_COLLECTIVE(Name, name, Params, Args) PCOLL_PERSISTENT_AS(MPIX, Name, Params, Args)
#include "collectives.def"
#endif
