/* Legal MPI that outlives its call: an unmodified program whose nonblocking and persistent
 * collectives outlive the handles they were called with, and are completed in any order by any
 * of MPI's completion calls. Run under libpcoll_mpi.so with every algorithm family
 * (tests/pmpi/CMakeLists.txt) and without it (the program's own check against the vendor).
 *  1. many nonblocking collectives outstanding at once on several communicators (duplicates and
 *     a split), a user op and a duplicated datatype freed right after the call, completed in an
 *     order of each rank's own with MPI_Wait, Test, Waitall, Testall, Waitany, Testany,
 *     Waitsome, Testsome and Request_get_status;
 *  2. persistent collectives started in an order that differs across ranks and from their init
 *     order (they match in init order), restarted in another order, with MPI_Startall too;
 *  3. MPI_Comm_free with nonblocking collectives outstanding on the communicator, then the wait;
 *  4. a persistent collective restarted after its communicator, datatype and op were freed;
 *  5. nonblocking calls are local: rank 0 waits for an outstanding allreduce before it starts
 *     the next collectives while the others start them first (shapes never seen before, so the
 *     algorithm is decided at the start: no rank may wait there for another);
 *  6. error classes under MPI_ERRORS_RETURN (an active persistent request restarted or freed,
 *     a negative count): the class the vendor gives.
 * Every result is an exact integer compared with its expected value. Prints "lifetime: OK". */
#include <mpi.h>

#include "expect.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#if defined(__has_include)
#if __has_include(<mpi-ext.h>)
#include <mpi-ext.h>
#endif
#endif

#if MPI_VERSION >= 4
#define INIT(name) MPI_##name##_init
#define HAVE_PERSISTENT 1
#elif defined(OMPI_HAVE_MPI_EXT_PCOLLREQ) && OMPI_HAVE_MPI_EXT_PCOLLREQ
#define INIT(name) MPIX_##name##_init
#define HAVE_PERSISTENT 1
#endif

static int failures = 0;
static int me = 0, P = 1;

/* A commutative user op on ints (a sum), so that every algorithm may serve it. */
static void int_sum(void *in, void *inout, int *len, MPI_Datatype *dt) {
  (void)dt;
  const int *a = in;
  int *b = inout;
  for (int i = 0; i < *len; ++i) b[i] += a[i];
}
/* The same on pairs of ints (a contiguous derived type of 2 ints). */
static void pair_sum(void *in, void *inout, int *len, MPI_Datatype *dt) {
  (void)dt;
  const int *a = in;
  int *b = inout;
  for (int i = 0; i < 2 * *len; ++i) b[i] += a[i];
}

static unsigned next_random(unsigned *s) {
  *s = *s * 1103515245u + 12345u;
  return (*s >> 16) & 0x7fff;
}

/* One outstanding collective and its check. */
enum { NCOUNT = 7 };
struct Slot {
  int kind;
  MPI_Comm comm;
  int csize, crank;
  int *in, *out;
  MPI_Request req;
  int done;
};

static void start_slot(struct Slot *s, int kind, MPI_Comm comm) {
  memset(s, 0, sizeof *s);
  s->kind = kind;
  s->comm = comm;
  MPI_Comm_size(comm, &s->csize);
  MPI_Comm_rank(comm, &s->crank);
  const int n = NCOUNT, q = s->csize, r = s->crank;
  s->in = malloc(sizeof(int) * (size_t)(n * q + 1));
  s->out = malloc(sizeof(int) * (size_t)(n * q + 1));
  for (int i = 0; i < n * q; ++i) {
    s->in[i] = (r + 1) * 100 + i;
    s->out[i] = -1;
  }
  switch (kind) {
    case 0: MPI_Iallreduce(s->in, s->out, n, MPI_INT, MPI_SUM, comm, &s->req); break;
    case 1: { /* a user op freed at once */
      MPI_Op op;
      MPI_Op_create(int_sum, 1, &op);
      MPI_Iallreduce(s->in, s->out, n, MPI_INT, op, comm, &s->req);
      MPI_Op_free(&op);
      break;
    }
    case 2:
      if (r == 1 % q)
        for (int i = 0; i < n; ++i) s->out[i] = 7000 + i;
      MPI_Ibcast(s->out, n, MPI_INT, 1 % q, comm, &s->req);
      break;
    case 3: MPI_Ialltoall(s->in, n, MPI_INT, s->out, n, MPI_INT, comm, &s->req); break;
    case 4: { /* a duplicated datatype freed at once */
      MPI_Datatype t;
      MPI_Type_contiguous(n, MPI_INT, &t);
      MPI_Type_commit(&t);
      MPI_Iallgather(s->in, 1, t, s->out, 1, t, comm, &s->req);
      MPI_Type_free(&t);
      break;
    }
    case 5: { /* a user op freed at once, reduce to the last rank */
      MPI_Op op;
      MPI_Op_create(int_sum, 1, &op);
      MPI_Ireduce(s->in, s->out, n, MPI_INT, op, q - 1, comm, &s->req);
      MPI_Op_free(&op);
      break;
    }
    case 6: MPI_Ireduce_scatter_block(s->in, s->out, n, MPI_INT, MPI_SUM, comm, &s->req); break;
    default: MPI_Ibarrier(comm, &s->req); break;
  }
}
enum { NKINDS = 8 };

static void check_slot(struct Slot *s, const char *what) {
  const int n = NCOUNT, q = s->csize, r = s->crank;
  const int ranks_sum = q * (q + 1) / 2; /* sum of (rank + 1) */
  int ok = 1;
  switch (s->kind) {
    case 0: case 1:
      for (int i = 0; i < n; ++i) ok &= s->out[i] == 100 * ranks_sum + q * i;
      break;
    case 2:
      for (int i = 0; i < n; ++i) ok &= s->out[i] == 7000 + i;
      break;
    case 3: /* block j from rank j: its element r*n + i */
      for (int j = 0; j < q; ++j)
        for (int i = 0; i < n; ++i) ok &= s->out[j * n + i] == (j + 1) * 100 + r * n + i;
      break;
    case 4:
      for (int j = 0; j < q; ++j)
        for (int i = 0; i < n; ++i) ok &= s->out[j * n + i] == (j + 1) * 100 + i;
      break;
    case 5:
      if (r == q - 1)
        for (int i = 0; i < n; ++i) ok &= s->out[i] == 100 * ranks_sum + q * i;
      break;
    case 6:
      for (int i = 0; i < n; ++i) ok &= s->out[i] == 100 * ranks_sum + q * (r * n + i);
      break;
    default: break;
  }
  EXPECT(ok, "rank %d: %s: collective kind %d on a communicator of %d wrong", me, what, s->kind, q);
  EXPECT(s->req == MPI_REQUEST_NULL, "rank %d: %s: kind %d's request not freed", me, what, s->kind);
  free(s->in);
  free(s->out);
}

/* Completes every slot, in this rank's own order, with every completion call of MPI. */
static void complete_all(struct Slot *slots, int n, unsigned seed, const char *what) {
  MPI_Request *reqs = malloc(sizeof(MPI_Request) * (size_t)n);
  int *idx = malloc(sizeof(int) * (size_t)n);
  int left = n;
  while (left > 0) {
    for (int i = 0; i < n; ++i) reqs[i] = slots[i].req;
    const unsigned how = next_random(&seed) % 9;
    int k = (int)(next_random(&seed) % (unsigned)n), flag = 0, count = 0;
    while (slots[k].done) k = (k + 1) % n;
    switch (how) {
      case 0: MPI_Wait(&reqs[k], MPI_STATUS_IGNORE); break;
      case 1: while (!flag) MPI_Test(&reqs[k], &flag, MPI_STATUS_IGNORE); break;
      case 2: MPI_Waitall(n, reqs, MPI_STATUSES_IGNORE); break;
      case 3: while (!flag) MPI_Testall(n, reqs, &flag, MPI_STATUSES_IGNORE); break;
      case 4: MPI_Waitany(n, reqs, &k, MPI_STATUS_IGNORE); break;
      case 5:
        k = MPI_UNDEFINED;
        while (!flag) MPI_Testany(n, reqs, &k, &flag, MPI_STATUS_IGNORE);
        break;
      case 6: MPI_Waitsome(n, reqs, &count, idx, MPI_STATUSES_IGNORE); break;
      case 7:
        while (count == 0) MPI_Testsome(n, reqs, &count, idx, MPI_STATUSES_IGNORE);
        break;
      default: /* Request_get_status leaves the request; a wait then frees it */
        while (!flag) MPI_Request_get_status(reqs[k], &flag, MPI_STATUS_IGNORE);
        MPI_Wait(&reqs[k], MPI_STATUS_IGNORE);
        break;
    }
    for (int i = 0; i < n; ++i) {
      slots[i].req = reqs[i];
      if (!slots[i].done && reqs[i] == MPI_REQUEST_NULL) {
        slots[i].done = 1;
        --left;
        check_slot(&slots[i], what);
      }
    }
  }
  free(reqs);
  free(idx);
}

static void outstanding_on_several(void) {
  MPI_Comm comms[4];
  MPI_Comm_dup(MPI_COMM_WORLD, &comms[0]);
  MPI_Comm_dup(MPI_COMM_WORLD, &comms[1]);
  MPI_Comm_split(MPI_COMM_WORLD, me % 2, P - me, &comms[2]); /* reversed order within halves */
  comms[3] = MPI_COMM_WORLD;
  for (int round = 0; round < 6; ++round) {
    enum { NS = 24 };
    struct Slot slots[NS];
    for (int i = 0; i < NS; ++i) start_slot(&slots[i], (i + round) % NKINDS, comms[(i / 3) % 4]);
    complete_all(slots, NS, 977u * (unsigned)me + 31u * (unsigned)round + 1u, "outstanding");
  }
  for (int i = 0; i < 3; ++i) MPI_Comm_free(&comms[i]);
  if (me == 0) printf("outstanding: 6 rounds of 24 on 4 communicators\n");
}

static void comm_freed_outstanding(void) {
  for (int round = 0; round < 3; ++round) {
    MPI_Comm c;
    MPI_Comm_dup(MPI_COMM_WORLD, &c);
    enum { NS = 8 };
    struct Slot slots[NS];
    for (int i = 0; i < NS; ++i) start_slot(&slots[i], (i + round) % NKINDS, c);
    MPI_Comm_free(&c);
    EXPECT(c == MPI_COMM_NULL, "MPI_Comm_free left the handle");
    /* A new communicator may take the freed one's handle: it must not find its state. */
    MPI_Comm again;
    MPI_Comm_dup(MPI_COMM_WORLD, &again);
    int x = me + 1, sum = 0;
    MPI_Allreduce(&x, &sum, 1, MPI_INT, MPI_SUM, again);
    EXPECT(sum == P * (P + 1) / 2, "allreduce on the new communicator: %d", sum);
    complete_all(slots, NS, 31u * (unsigned)me + (unsigned)round, "freed communicator");
    MPI_Comm_free(&again);
  }
  if (me == 0) printf("freed with operations outstanding: 3 rounds of 8\n");
}

/* A nonblocking start is local (MPI): it may not wait for another rank. Rank 0 waits for X (an
 * allreduce large enough to need every rank's progress) before it starts Z; the others start Z
 * first, then wait for X. Z's shapes are new each round, so pcoll decides their algorithms at the
 * start: were that decision a collective, the others would wait in it for rank 0, which waits
 * for their progress on X. */
static void starts_are_local(void) {
  MPI_Comm c;
  MPI_Comm_dup(MPI_COMM_WORLD, &c);
  int warm = 0, warm_out = 0; /* the communicator's first call: its set-up is collective */
  MPI_Allreduce(&warm, &warm_out, 1, MPI_INT, MPI_SUM, c);
  enum { NX = 1 << 18, NZ = 4 };
  int *x_in = malloc(sizeof(int) * NX), *x_out = malloc(sizeof(int) * NX);
  for (int round = 0; round < 3; ++round) {
    for (int i = 0; i < NX; ++i) x_in[i] = me + i % 13;
    MPI_Request x;
    MPI_Iallreduce(x_in, x_out, NX, MPI_INT, MPI_SUM, c, &x);
    const int n = 1000 + 37 * round; /* counts no call used before */
    int *z_in = malloc(sizeof(int) * (size_t)(n * P)), *z_out[NZ];
    for (int i = 0; i < n * P; ++i) z_in[i] = me * 7 + i;
    for (int k = 0; k < NZ; ++k) z_out[k] = malloc(sizeof(int) * (size_t)(n * P));
    MPI_Request z[NZ];
    if (me == 0) MPI_Wait(&x, MPI_STATUS_IGNORE);
    MPI_Iallgather(z_in, n, MPI_INT, z_out[0], n, MPI_INT, c, &z[0]);
    MPI_Iallreduce(z_in, z_out[1], n, MPI_INT, MPI_SUM, c, &z[1]);
    MPI_Ialltoall(z_in, n, MPI_INT, z_out[2], n, MPI_INT, c, &z[2]);
    if (me == 0) memcpy(z_out[3], z_in, sizeof(int) * (size_t)n);
    MPI_Ibcast(z_out[3], n, MPI_INT, 0, c, &z[3]);
    if (me != 0) MPI_Wait(&x, MPI_STATUS_IGNORE);
    MPI_Waitall(NZ, z, MPI_STATUSES_IGNORE);
    int bad = 0;
    for (int i = 0; i < NX && !bad; ++i)
      bad = x_out[i] != P * (P - 1) / 2 + P * (i % 13);
    EXPECT(!bad, "starts are local: the large allreduce (round %d)", round);
    for (int q = 0; q < P && !bad; ++q)
      for (int i = 0; i < n && !bad; ++i) {
        bad |= z_out[0][q * n + i] != q * 7 + i;        /* allgather: rank q's first n */
        bad |= z_out[2][q * n + i] != q * 7 + me * n + i; /* alltoall: rank q's block me */
      }
    for (int i = 0; i < n && !bad; ++i) {
      bad |= z_out[1][i] != 7 * P * (P - 1) / 2 + P * i;
      bad |= z_out[3][i] != i;
    }
    EXPECT(!bad, "starts are local: the collectives started beside it (round %d)", round);
    for (int k = 0; k < NZ; ++k) free(z_out[k]);
    free(z_in);
  }
  free(x_in);
  free(x_out);
  MPI_Comm_free(&c);
  if (me == 0) printf("starts are local: 3 rounds\n");
}

#ifdef HAVE_PERSISTENT
static void persistent_any_order(void) {
  MPI_Comm c;
  MPI_Comm_dup(MPI_COMM_WORLD, &c);
  enum { NP = 5, N = 4 };
  int bc[N], ar_in[N], ar_out[N], *a2a_in = malloc(sizeof(int) * (size_t)(N * P)),
      *a2a_out = malloc(sizeof(int) * (size_t)(N * P)), red[N];
  MPI_Request r[NP];
  INIT(Bcast)(bc, N, MPI_INT, 0, c, MPI_INFO_NULL, &r[0]);
  INIT(Barrier)(c, MPI_INFO_NULL, &r[1]);
  INIT(Allreduce)(ar_in, ar_out, N, MPI_INT, MPI_SUM, c, MPI_INFO_NULL, &r[2]);
  INIT(Alltoall)(a2a_in, N, MPI_INT, a2a_out, N, MPI_INT, c, MPI_INFO_NULL, &r[3]);
  INIT(Reduce)(ar_in, red, N, MPI_INT, MPI_MAX, P - 1, c, MPI_INFO_NULL, &r[4]);
  for (int it = 0; it < 8; ++it) {
    for (int i = 0; i < N; ++i) {
      bc[i] = me == 0 ? 500 * it + i : -1;
      ar_in[i] = (me + 1) * (it + 1) + i;
      ar_out[i] = red[i] = -1;
    }
    for (int i = 0; i < N * P; ++i) a2a_in[i] = 1000 * me + i + it;
    /* Each rank starts them in an order of its own (rank- and iteration-dependent), or all at
       once with MPI_Startall, and completes them in yet another. */
    if ((it + me) % 3 == 2) {
      MPI_Startall(NP, r);
    } else {
      for (int k = 0; k < NP; ++k) {
        const int j = (it + me) % 2 ? NP - 1 - k : (k + me + it) % NP;
        MPI_Start(&r[j]);
      }
    }
    if (it % 2) {
      MPI_Waitall(NP, r, MPI_STATUSES_IGNORE);
    } else {
      for (int k = 0; k < NP; ++k) {
        int flag = 0;
        const int j = (k * 3 + me) % NP;
        while (!flag) MPI_Test(&r[j], &flag, MPI_STATUS_IGNORE);
      }
    }
    for (int k = 0; k < NP; ++k) EXPECT(r[k] != MPI_REQUEST_NULL, "persistent request %d freed", k);
    int ok = 1;
    for (int i = 0; i < N; ++i) {
      ok &= bc[i] == 500 * it + i;
      ok &= ar_out[i] == (it + 1) * P * (P + 1) / 2 + P * i;
      if (me == P - 1) ok &= red[i] == P * (it + 1) + i;
    }
    for (int j = 0; j < P; ++j)
      for (int i = 0; i < N; ++i) ok &= a2a_out[j * N + i] == 1000 * j + me * N + i + it;
    EXPECT(ok, "rank %d: persistent start %d: wrong results", me, it);
  }
  for (int k = 0; k < NP; ++k) MPI_Request_free(&r[k]);
  MPI_Comm_free(&c);
  free(a2a_in);
  free(a2a_out);
  if (me == 0) printf("persistent: 5 started in every order, 8 times\n");
}

static void persistent_handles_freed(void) {
  MPI_Comm c;
  MPI_Comm_dup(MPI_COMM_WORLD, &c);
  MPI_Datatype pair;
  MPI_Type_contiguous(2, MPI_INT, &pair);
  MPI_Type_commit(&pair);
  MPI_Op op;
  MPI_Op_create(pair_sum, 1, &op);
  enum { N = 5 };
  int in[2 * N], out[2 * N], bc[2 * N];
  MPI_Request r[2];
  INIT(Allreduce)(in, out, N, pair, op, c, MPI_INFO_NULL, &r[0]);
  INIT(Bcast)(bc, N, pair, P - 1, c, MPI_INFO_NULL, &r[1]);
  MPI_Type_free(&pair);
  MPI_Op_free(&op);
  MPI_Comm_free(&c);
  for (int it = 0; it < 4; ++it) {
    for (int i = 0; i < 2 * N; ++i) {
      in[i] = (me + 1) * (i + 1) + it;
      out[i] = -1;
      bc[i] = me == P - 1 ? 40 * it + i : -1;
    }
    MPI_Start(&r[it % 2]);
    MPI_Start(&r[1 - it % 2]);
    MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
    int ok = 1;
    for (int i = 0; i < 2 * N; ++i) {
      ok &= out[i] == (i + 1) * P * (P + 1) / 2 + P * it;
      ok &= bc[i] == 40 * it + i;
    }
    EXPECT(ok, "rank %d: restart %d after the communicator, type and op were freed: wrong", me, it);
  }
  MPI_Request_free(&r[0]);
  MPI_Request_free(&r[1]);
  if (me == 0) printf("persistent: restarted after its communicator, datatype and op were freed\n");
}
#endif

static void error_classes(void) {
  MPI_Comm c;
  MPI_Comm_dup(MPI_COMM_WORLD, &c);
  MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN);
  int x = 1, y = 0, cls = MPI_SUCCESS;
  MPI_Request r = MPI_REQUEST_NULL;
  MPI_Error_class(MPI_Iallreduce(&x, &y, -1, MPI_INT, MPI_SUM, c, &r), &cls);
  EXPECT(cls == MPI_ERR_COUNT, "Iallreduce with count -1: class %d, not MPI_ERR_COUNT", cls);
#ifdef HAVE_PERSISTENT
  INIT(Allreduce)(&x, &y, 1, MPI_INT, MPI_SUM, c, MPI_INFO_NULL, &r);
  MPI_Start(&r);
  const int again = MPI_Start(&r);
  EXPECT(again != MPI_SUCCESS, "MPI_Start of an active persistent request succeeded");
  MPI_Wait(&r, MPI_STATUS_IGNORE);
  EXPECT(y == P, "allreduce after the refused start: %d", y);
  MPI_Request_free(&r);
  EXPECT(r == MPI_REQUEST_NULL, "MPI_Request_free left the request");
#endif
  MPI_Comm_free(&c);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &P);
  outstanding_on_several();
  comm_freed_outstanding();
  starts_are_local();
#ifdef HAVE_PERSISTENT
  persistent_any_order();
  persistent_handles_freed();
#else
  if (me == 0) printf("persistent: this MPI has no persistent collectives\n");
#endif
  error_classes();
  int all = 0;
  MPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (me == 0) printf(all == 0 ? "lifetime: OK\n" : "lifetime: %d failures\n", all);
  MPI_Finalize();
  return all == 0 ? 0 : 1;
}
