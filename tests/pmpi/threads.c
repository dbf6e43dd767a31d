/* MPI_THREAD_MULTIPLE under libpcoll_mpi.so: two threads per rank in collectives at once, on two
 * communicators. Thread A allreduces on comm_a (rank 1's A arrives 400 ms late, so rank 0's A
 * waits inside the call); thread B of every rank allreduces on comm_b 100 ms after start, so on
 * rank 0 it enters while A is still inside. With PCOLL_THREAD_MULTIPLE=check pcoll must stop the
 * run with its message (never race); with =vendor every call goes to the vendor and the results
 * are right. Plain MPI and pthreads only. */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

static MPI_Comm comm_a, comm_b;
static int rank, size, bad;

static void *thread_a(void *arg) {
  (void)arg;
  if (rank == 1) usleep(400000);
  int x = rank, s = 0;
  MPI_Allreduce(&x, &s, 1, MPI_INT, MPI_SUM, comm_a);
  if (s != size * (size - 1) / 2) bad = 1;
  return NULL;
}

static void *thread_b(void *arg) {
  (void)arg;
  usleep(100000);
  int x = 1, s = 0;
  MPI_Allreduce(&x, &s, 1, MPI_INT, MPI_SUM, comm_b);
  if (s != size) bad = 1;
  return NULL;
}

int main(int argc, char **argv) {
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  if (provided != MPI_THREAD_MULTIPLE) {
    printf("threads: MPI_THREAD_MULTIPLE not provided (%d)\n", provided);
    MPI_Abort(MPI_COMM_WORLD, 3);
  }
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm_dup(MPI_COMM_WORLD, &comm_a);
  MPI_Comm_dup(MPI_COMM_WORLD, &comm_b);
  pthread_t a, b;
  pthread_create(&a, NULL, thread_a, NULL);
  pthread_create(&b, NULL, thread_b, NULL);
  pthread_join(a, NULL);
  pthread_join(b, NULL);
  MPI_Comm_free(&comm_a);
  MPI_Comm_free(&comm_b);
  if (bad) {
    printf("threads: rank %d: WRONG result\n", rank);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  if (rank == 0) printf("threads: two threads in collectives at once, results exact\n");
  MPI_Finalize();
  return 0;
}
