/* pcoll: pluggable MPI collectives.
 *
 * Every collective has exactly the signature and semantics of its MPI counterpart (MPI 4.1,
 * chapter 6) and returns MPI error codes, after invoking the communicator's error handler.
 * Which algorithm serves a call is chosen at run time: PCOLL_<COLLECTIVE>=vendor|auto|<algorithm>
 * (PCOLL_ALLREDUCE, PCOLL_ALLTOALL, ...; `pcoll-info` lists every collective's algorithms and
 * parameters, PCOLL_Algorithm_name() enumerates them), or per communicator with
 * PCOLL_Config_push / pcoll::ScopedConfig. Ranks may pass different datatypes of one type
 * signature, as MPI allows: pcoll decides on the signature and packs non-contiguous buffers. */
#ifndef PCOLL_PCOLL_H
#define PCOLL_PCOLL_H

#include <mpi.h>
#include <pcoll/version.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* PCOLL_VERSION_STRING, as the library was built (pcoll/version.h has the header's). */
const char *PCOLL_Version(void);

int PCOLL_Allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                    MPI_Comm comm);

int PCOLL_Reduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount,
                               MPI_Datatype datatype, MPI_Op op, MPI_Comm comm);

/* MPI_Reduce_scatter semantics: block q of the reduced vector (recvcounts[q] elements, the
 * blocks in rank order) to rank q; MPI_IN_PLACE (the whole vector in recvbuf, the result in
 * front), zero counts, any P; commutative ops (non-commutative ones go to the vendor). */
int PCOLL_Reduce_scatter(const void *sendbuf, void *recvbuf, const int recvcounts[],
                         MPI_Datatype datatype, MPI_Op op, MPI_Comm comm);

int PCOLL_Allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                    int recvcount, MPI_Datatype recvtype, MPI_Comm comm);

/* MPI_Allgatherv semantics: MPI_IN_PLACE (sendcount and sendtype ignored; the own block sits at
 * displs[rank]), zero counts, displacements in any order and negative, any P, send and receive
 * types of one signature per block (non-contiguous ones packed block by block). */
int PCOLL_Allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                     const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                     MPI_Comm comm);

/* MPI_Alltoall semantics: MPI_IN_PLACE (sendcount and sendtype ignored), count 0, any P; send
 * and receive types may differ (one signature per block). */
int PCOLL_Alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                   int recvcount, MPI_Datatype recvtype, MPI_Comm comm);

/* MPI_Alltoallv semantics: MPI_IN_PLACE (sendcounts, sdispls and sendtype ignored; the data is
 * sent from recvbuf as recvcounts and rdispls lay it out), zero counts, negative displacements,
 * any P, any send and receive types (non-contiguous ones packed block by block). */
int PCOLL_Alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                    MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                    const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm);

/* MPI_Bcast, MPI_Reduce and MPI_Barrier semantics: any root, count 0, MPI_IN_PLACE at the
 * reduce root, non-commutative ops reduced in rank order (every algorithm but bine, which declares
 * it needs a commutative op and hands such calls to the vendor). */
int PCOLL_Bcast(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm);
int PCOLL_Reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                 int root, MPI_Comm comm);
int PCOLL_Barrier(MPI_Comm comm);

/* Nonblocking collectives (MPI_I<coll>): the same algorithm and plan as the blocking twin
 * (chosen by the same PCOLL_<COLLECTIVE> variable and rules), so the same bits. The request is
 * an MPI generalized request: complete it with PCOLL_Wait/Test/... (below) or, under
 * libpcoll_mpi.so, with MPI's own MPI_Wait/Test/..., mixed with point-to-point requests.
 * pcoll's messages move on whenever the program is inside one of pcoll's calls; `vendor` hands
 * the call to the vendor's MPI_I<coll> and returns its request. Several outstanding at once, on
 * one communicator or several, are kept apart by sequence-numbered tags. */
int PCOLL_Iallreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                     MPI_Op op, MPI_Comm comm, MPI_Request *request);
int PCOLL_Ireduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount,
                                MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                                MPI_Request *request);
int PCOLL_Ireduce_scatter(const void *sendbuf, void *recvbuf, const int recvcounts[],
                          MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request *request);
int PCOLL_Iallgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                     int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request);
int PCOLL_Iallgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                      const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                      MPI_Comm comm, MPI_Request *request);
int PCOLL_Ialltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                    int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request);
int PCOLL_Ialltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                     MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                     const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                     MPI_Request *request);
int PCOLL_Ibcast(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm,
                 MPI_Request *request);
int PCOLL_Ireduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                  int root, MPI_Comm comm, MPI_Request *request);
int PCOLL_Ibarrier(MPI_Comm comm, MPI_Request *request);

/* Persistent collectives (MPI 4.0 MPI_<Coll>_init): selection, plan and the buffers' layout are
 * fixed here; PCOLL_Start/Startall start it (staging the buffers' current contents and posting
 * the first round, nothing else), PCOLL_Wait/Test/... complete it and leave it inactive,
 * PCOLL_Request_free frees it. The request is pcoll's own: only pcoll's completion calls (or
 * MPI's under libpcoll_mpi.so) know it. `vendor` starts the vendor's MPI_I<coll> at each start
 * (Open MPI 4.1's MPIX_<Coll>_init is not used). The MPI_Info hints are accepted and ignored. */
int PCOLL_Allreduce_init(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                         MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request *request);
int PCOLL_Reduce_scatter_block_init(const void *sendbuf, void *recvbuf, int recvcount,
                                    MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                                    MPI_Info info, MPI_Request *request);
int PCOLL_Reduce_scatter_init(const void *sendbuf, void *recvbuf, const int recvcounts[],
                              MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info,
                              MPI_Request *request);
int PCOLL_Allgather_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                         int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                         MPI_Request *request);
int PCOLL_Allgatherv_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                          void *recvbuf, const int recvcounts[], const int displs[],
                          MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                          MPI_Request *request);
int PCOLL_Alltoall_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                        int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                        MPI_Request *request);
int PCOLL_Alltoallv_init(const void *sendbuf, const int sendcounts[], const int sdispls[],
                         MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                         const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                         MPI_Info info, MPI_Request *request);
int PCOLL_Bcast_init(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm,
                     MPI_Info info, MPI_Request *request);
int PCOLL_Reduce_init(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                      MPI_Op op, int root, MPI_Comm comm, MPI_Info info, MPI_Request *request);
int PCOLL_Barrier_init(MPI_Comm comm, MPI_Info info, MPI_Request *request);

/* MPI's completion calls for requests of any kind (pcoll's nonblocking and persistent ones,
 * point-to-point, the vendor's), with MPI's signatures and semantics; they make progress on
 * every outstanding pcoll collective while they wait. libpcoll_mpi.so installs them as MPI_Wait
 * etc., so unmodified programs get them; a program linked with libpcoll alone calls these. */
int PCOLL_Wait(MPI_Request *request, MPI_Status *status);
int PCOLL_Test(MPI_Request *request, int *flag, MPI_Status *status);
int PCOLL_Waitall(int count, MPI_Request requests[], MPI_Status statuses[]);
int PCOLL_Testall(int count, MPI_Request requests[], int *flag, MPI_Status statuses[]);
int PCOLL_Waitany(int count, MPI_Request requests[], int *index, MPI_Status *status);
int PCOLL_Testany(int count, MPI_Request requests[], int *index, int *flag, MPI_Status *status);
int PCOLL_Waitsome(int incount, MPI_Request requests[], int *outcount, int indices[],
                   MPI_Status statuses[]);
int PCOLL_Testsome(int incount, MPI_Request requests[], int *outcount, int indices[],
                   MPI_Status statuses[]);
int PCOLL_Request_get_status(MPI_Request request, int *flag, MPI_Status *status);
int PCOLL_Start(MPI_Request *request);
int PCOLL_Startall(int count, MPI_Request requests[]);
int PCOLL_Request_free(MPI_Request *request);
/* MPI_Op_free for a user op that outstanding pcoll collectives may still use: MPI lets a program
 * free an op while collectives that use it are pending, and pcoll frees it once the last of
 * them is released. libpcoll_mpi.so installs it as MPI_Op_free; a program linked with libpcoll
 * alone that frees a user op before its nonblocking or persistent pcoll collectives complete (or,
 * for persistent ones, are freed) calls it instead. */
int PCOLL_Op_free(MPI_Op *op);

/* Overrides parameter `name` (as listed by pcoll-info, e.g. "allreduce", "tree_arity") for calls
 * on `comm` until the matching PCOLL_Config_pop. Every rank of comm must push the same values
 * (not checked: the environment is checked once, overrides are the program's responsibility).
 * Returns MPI_ERR_ARG, with a message naming the allowed values, for a bad name or value. */
int PCOLL_Config_push(MPI_Comm comm, const char *name, const char *value);
int PCOLL_Config_pop(MPI_Comm comm);

/* The effective value of parameter `name` on comm (override > PCOLL_* environment > default),
 * e.g. "auto" for "allreduce" when nothing is set. Collective on first use of comm. The string
 * stays valid until the configuration of comm changes. */
int PCOLL_Config_get(MPI_Comm comm, const char *name, const char **value);

/* The index-th algorithm of `collective` ("allreduce", "alltoallv", "bcast", ... as pcoll-info
 * lists them), in pcoll-info's order, or NULL past the last one (or for an unknown collective).
 * Makes no MPI call: usable before MPI_Init, e.g. to build a list of algorithms to compare. */
const char *PCOLL_Algorithm_name(const char *collective, int index);

/* The algorithm that served the last call on comm ("vendor" after a fallback), or "" if none.
 * The string stays valid until the next pcoll call on comm. */
int PCOLL_Get_last_algorithm(MPI_Comm comm, const char **name);

/* The thread level to ask MPI_Init_thread for: `level`, or MPI_THREAD_MULTIPLE when
 * PCOLL_PROGRESS=thread asks for pcoll's progress thread (which makes MPI calls while the
 * program's thread does). Makes no MPI call: for use before MPI_Init_thread, e.g.
 * MPI_Init_thread(&argc, &argv, PCOLL_Required_thread_level(MPI_THREAD_FUNNELED), &provided). */
int PCOLL_Required_thread_level(int level);

/* Binned sums: a partial sum of doubles (or floats) whose value does not depend on the order
 * of its additions, so a reduction of binned sums has the same bits whatever the algorithm, the
 * rank count and the decomposition of the addends (Demmel and Nguyen's pre-rounded summation,
 * with pcoll's own encoding: 3 bins of 64 bits on a grid fixed for every double; the error is
 * at most n x 2^-128 x max|x_i| plus half an ulp of the result). Add a rank's addends with
 * PCOLL_Binned_add, reduce the sums with PCOLL_Allreduce(..., PCOLL_Binned_type(),
 * PCOLL_Binned_op(), comm) (or the vendor's MPI_Allreduce: the op is exactly associative and
 * commutative, so it gives the same bits too), read the result with PCOLL_Binned_value. The
 * type and op exist from their first call (MPI must be initialised) to the end of the process.
 * PCOLL_REPRODUCIBLE=on applies the same to every MPI_SUM of MPI_DOUBLE, MPI_FLOAT and their
 * complex types in PCOLL_Allreduce, PCOLL_Reduce and PCOLL_Reduce_scatter_block. */
typedef struct PCOLL_Binned {
  int32_t top;        /* index of the top bin kept; -1: no finite non-zero addend yet */
  uint32_t flags;     /* NaN, +inf, -inf, something added, an addend other than -0.0 */
  uint64_t bins[6];   /* 3 signed 128-bit bins, low word first */
} PCOLL_Binned;
void PCOLL_Binned_clear(PCOLL_Binned *b); /* the empty sum (its value is +0.0) */
void PCOLL_Binned_add(PCOLL_Binned *b, double x);
/* The same as n calls of PCOLL_Binned_add, faster: x[0..n), and the products x[i] * y[i]. */
void PCOLL_Binned_add_n(PCOLL_Binned *b, const double *x, size_t n);
void PCOLL_Binned_dot_n(PCOLL_Binned *b, const double *x, const double *y, size_t n);
void PCOLL_Binned_merge(PCOLL_Binned *dst, const PCOLL_Binned *src); /* dst += src */
double PCOLL_Binned_value(const PCOLL_Binned *b); /* rounded to nearest even */
float PCOLL_Binned_value_float(const PCOLL_Binned *b); /* rounded once, from the exact sum */
MPI_Datatype PCOLL_Binned_type(void);
MPI_Op PCOLL_Binned_op(void);

#ifdef __cplusplus
}
#endif

#endif /* PCOLL_PCOLL_H */
