// MPI's completion calls (MPI_Wait/Test/..., MPI_Start/Startall, MPI_Request_free,
// MPI_Request_get_status, MPI_Op_free) and MPI_Init/MPI_Init_thread of libpcoll_mpi.so, each
// under both its MPI_ and PMPI_ name like collectives.cpp's. The completion calls go to pcoll's
// (which make progress on pcoll's outstanding collectives while they wait) only while a pcoll
// request exists, and are a plain pass-through to the vendor otherwise, so programs that never
// use a nonblocking collective see no difference (nor do threads of MPI_THREAD_MULTIPLE programs
// that only wait on point-to-point requests).
#include <pcoll/pcoll.h>

#include "engine.hpp"
#include "pmpi/interpose.hpp"
#include "request.hpp"

using pcoll::pmpi::Gate;

// A completion call: pcoll's while any pcoll request exists.
#define PCOLL_COMPLETE(Name, Params, Args)                                             \
  namespace {                                                                          \
  int complete_##Name Params {                                                         \
    PCOLL_VENDOR(PMPI_##Name);                                                         \
    if (!pcoll::requests_in_use()) return vendor_PMPI_##Name Args;                     \
    const Gate gate;                                                                   \
    return gate.serve() ? PCOLL_##Name Args : vendor_PMPI_##Name Args;                 \
  }                                                                                    \
  }                                                                                    \
  extern "C" int MPI_##Name Params { return complete_##Name Args; }                    \
  extern "C" int PMPI_##Name Params { return complete_##Name Args; }

// --- MPI_Init and MPI_Init_thread -----------------------------------------------------------------
// With PCOLL_PROGRESS=thread, pcoll's progress thread needs MPI_THREAD_MULTIPLE (engine.hpp): an
// unmodified program's MPI_Init, or MPI_Init_thread at a lower level, asks for it instead. MPI
// lets `provided` exceed `required`; a program that never starts a second thread of its own sees
// no difference. Otherwise (and with PCOLL_DISABLE=1) both are the vendor's.

namespace {
bool upgrade_init() { return pcoll::progress_thread_requested() && !pcoll::pmpi::disabled(); }
int init_plain(int *argc, char ***argv) {
  PCOLL_VENDOR(PMPI_Init);
  PCOLL_VENDOR(PMPI_Init_thread);
  if (!upgrade_init()) return vendor_PMPI_Init(argc, argv);
  int provided = MPI_THREAD_SINGLE;
  return vendor_PMPI_Init_thread(argc, argv, MPI_THREAD_MULTIPLE, &provided);
}
int init_thread(int *argc, char ***argv, int required, int *provided) {
  PCOLL_VENDOR(PMPI_Init_thread);
  return vendor_PMPI_Init_thread(argc, argv, upgrade_init() ? MPI_THREAD_MULTIPLE : required,
                                 provided);
}
}  // namespace
extern "C" int MPI_Init(int *argc, char ***argv) { return init_plain(argc, argv); }
extern "C" int PMPI_Init(int *argc, char ***argv) { return init_plain(argc, argv); }
extern "C" int MPI_Init_thread(int *argc, char ***argv, int required, int *provided) {
  return init_thread(argc, argv, required, provided);
}
extern "C" int PMPI_Init_thread(int *argc, char ***argv, int required, int *provided) {
  return init_thread(argc, argv, required, provided);
}

// --- completion ----------------------------------------------------------------------------------

PCOLL_COMPLETE(Wait, (MPI_Request * request, MPI_Status *status), (request, status))
PCOLL_COMPLETE(Test, (MPI_Request * request, int *flag, MPI_Status *status),
               (request, flag, status))
PCOLL_COMPLETE(Waitall, (int count, MPI_Request requests[], MPI_Status statuses[]),
               (count, requests, statuses))
PCOLL_COMPLETE(Testall, (int count, MPI_Request requests[], int *flag, MPI_Status statuses[]),
               (count, requests, flag, statuses))
PCOLL_COMPLETE(Waitany, (int count, MPI_Request requests[], int *index, MPI_Status *status),
               (count, requests, index, status))
PCOLL_COMPLETE(Testany,
               (int count, MPI_Request requests[], int *index, int *flag, MPI_Status *status),
               (count, requests, index, flag, status))
PCOLL_COMPLETE(Waitsome,
               (int incount, MPI_Request requests[], int *outcount, int indices[],
                MPI_Status statuses[]),
               (incount, requests, outcount, indices, statuses))
PCOLL_COMPLETE(Testsome,
               (int incount, MPI_Request requests[], int *outcount, int indices[],
                MPI_Status statuses[]),
               (incount, requests, outcount, indices, statuses))
PCOLL_COMPLETE(Request_get_status, (MPI_Request request, int *flag, MPI_Status *status),
               (request, flag, status))
PCOLL_COMPLETE(Start, (MPI_Request * request), (request))
PCOLL_COMPLETE(Startall, (int count, MPI_Request requests[]), (count, requests))
PCOLL_COMPLETE(Request_free, (MPI_Request * request), (request))
// An op held by an outstanding pcoll collective is freed when the last one is released.
PCOLL_COMPLETE(Op_free, (MPI_Op * op), (op))
