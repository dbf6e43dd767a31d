"""An unmodified mpi4py program (Debian's python3-mpi4py): buffer-based Allreduce, Alltoall and
Bcast on numpy arrays and the pickle-based lowercase calls, with exactly known results. mpi4py
asks for MPI_THREAD_MULTIPLE at import; under libpcoll_mpi.so the default
PCOLL_THREAD_MULTIPLE=check serves the calls (this program has one thread). Then Iallreduce
on doubles (sums whose bits depend on the order of additions) completed by Wait, and by
Request.Waitall with point-to-point requests: bit for bit the blocking Allreduce's when pcoll
serves both (PCOLL_ALLREDUCE is not vendor)."""
import os
import sys

import numpy as np
from mpi4py import MPI

comm = MPI.COMM_WORLD
rank, P = comm.Get_rank(), comm.Get_size()


def expect(ok, what):
    if not ok:
        print(f"rank {rank}: wrong result in {what}", flush=True)
        comm.Abort(2)


for n in (1, 7, 1000):
    x = np.arange(n, dtype=np.float64) + rank
    y = np.empty_like(x)
    comm.Allreduce(x, y, op=MPI.SUM)
    expect(np.array_equal(y, P * np.arange(n) + P * (P - 1) / 2), f"Allreduce n={n}")
    i = np.full(n, rank, dtype=np.int64)
    comm.Allreduce(MPI.IN_PLACE, i, op=MPI.MAX)
    expect(np.all(i == P - 1), f"Allreduce in place n={n}")

send = np.array([rank * 100 + q for q in range(P) for _ in range(3)], dtype=np.int32)
recv = np.empty_like(send)
comm.Alltoall(send, recv)
expect(np.array_equal(recv, [q * 100 + rank for q in range(P) for _ in range(3)]), "Alltoall")

for root in range(P):
    b = np.arange(50, dtype=np.float64) if rank == root else np.zeros(50)
    comm.Bcast(b, root=root)
    expect(np.array_equal(b, np.arange(50)), f"Bcast root={root}")

# Iallreduce (pcoll's nonblocking path under the preload) against Allreduce on the same doubles.
x = (1.0 / (1 + (rank * 31 + 7 * np.arange(997)) % 97)) * np.where((np.arange(997) + rank) % 3, 1e-7, 1e12)
bl = np.empty_like(x)
comm.Allreduce(x, bl, op=MPI.SUM)
same = (lambda a: np.array_equal(a.view(np.int64), bl.view(np.int64))) \
    if os.environ.get("PCOLL_ALLREDUCE", "auto") != "vendor" else (lambda a: np.allclose(a, bl, rtol=1e-12))
nb = np.full_like(x, -1.0)
comm.Iallreduce(x, nb, op=MPI.SUM).Wait()
expect(same(nb), "Iallreduce + Wait")
nb[:] = -1.0
got = np.full(1, -1, dtype=np.int64)
reqs = [comm.Iallreduce(x, nb, op=MPI.SUM),
        comm.Irecv(got, source=(rank + P - 1) % P, tag=5),
        comm.Isend(np.full(1, rank, dtype=np.int64), dest=(rank + 1) % P, tag=5)]
MPI.Request.Waitall(reqs)
expect(same(nb), "Iallreduce in Waitall")
expect(got[0] == (rank + P - 1) % P, "point-to-point in Waitall")

# The pickle-based calls (mpi4py builds them from point-to-point and collective calls).
expect(comm.allreduce(rank, op=MPI.SUM) == P * (P - 1) // 2, "allreduce (pickle)")
expect(comm.bcast({"root": "data"} if rank == 0 else None, root=0) == {"root": "data"}, "bcast")
expect(comm.alltoall([(rank, q) for q in range(P)]) == [(q, rank) for q in range(P)], "alltoall")
expect(comm.allgather(rank * rank) == [q * q for q in range(P)], "allgather (pickle)")
comm.barrier()
if rank == 0:
    print(f"mpi4py_program: P={P}, all results exact", flush=True)
sys.exit(0)
