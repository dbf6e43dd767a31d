/* pcoll tracing: per collective call and per rank, enter/exit time and per-phase durations,
 * plus the application's own iterations and phases, written as one HDF5 file (layout:
 * docs/trace-format.md).
 *
 * Tracing starts with PCOLL_TRACE=path.h5 in the environment (at the first pcoll call) or with
 * PCOLL_Trace_start. The file is written collectively at MPI_Finalize (pcoll registers an
 * MPI_COMM_SELF attribute whose delete callback MPI_Finalize runs first, while MPI is fully
 * usable: no PMPI interception needed), and on PCOLL_Trace_flush / PCOLL_Trace_stop. It is
 * written as path.tmp and renamed to path on success, so a run killed midway leaves no
 * half-valid file under the final name. With PCOLL_TRACE set, every rank of MPI_COMM_WORLD must
 * make at least one pcoll call (the write at MPI_Finalize is collective).
 *
 * Calls marked "collective" must be made by every rank of MPI_COMM_WORLD. The others are local
 * and cost one branch when tracing is off. All return MPI error codes. */
#ifndef PCOLL_TRACE_H
#define PCOLL_TRACE_H

#ifdef __cplusplus
extern "C" {
#endif

/* Collective. Starts tracing into `path` (same on every rank) and measures clock offsets. If
 * tracing is already on, only the path changes. MPI_ERR_UNSUPPORTED_OPERATION when pcoll was
 * built without HDF5. */
int PCOLL_Trace_start(const char *path);
/* Collective. Writes everything recorded so far (the file says complete=0); recording goes on. */
int PCOLL_Trace_flush(void);
/* Collective. Writes the file (complete=1) and stops tracing, freeing its memory. */
int PCOLL_Trace_stop(void);
/* 1 when tracing is on, else 0. */
int PCOLL_Trace_active(void);

/* Application phases, recorded in /app with this rank's time. Iteration numbers also tag the
 * collective calls made between begin and end (column `iteration` of /calls). */
int PCOLL_Trace_iteration_begin(long long iteration);
int PCOLL_Trace_iteration_end(void);
/* Named phases nest; end must name the innermost open phase (else MPI_ERR_ARG). */
int PCOLL_Trace_phase_begin(const char *name);
int PCOLL_Trace_phase_end(const char *name);
/* A duration measured by the application itself. */
int PCOLL_Trace_record(const char *name, double seconds);

#ifdef __cplusplus
}

namespace pcoll {
/* { pcoll::TracePhase p("compute"); ... } records the scope as an application phase. */
class TracePhase {
 public:
  explicit TracePhase(const char *name) : name_(name) { PCOLL_Trace_phase_begin(name_); }
  ~TracePhase() { PCOLL_Trace_phase_end(name_); }
  TracePhase(const TracePhase &) = delete;
  TracePhase &operator=(const TracePhase &) = delete;

 private:
  const char *name_;
};
}  // namespace pcoll
#endif

#endif /* PCOLL_TRACE_H */
