"""The mpi4py twin of allreduce_loop.c (scripts/preload-demo.sh): an unmodified mpi4py program
timing comm.Allreduce on a numpy buffer of COUNT doubles (TRIALS trials of ITERS calls, slowest
rank per trial), result checked exactly, plus one pickle-based comm.allreduce.
    python3 allreduce_loop.py COUNT ITERS TRIALS"""
import sys

import numpy as np
from mpi4py import MPI

comm = MPI.COMM_WORLD
rank, P = comm.Get_rank(), comm.Get_size()
count, iters, trials = (int(a) for a in (sys.argv[1:] + ["1", "200", "15"][len(sys.argv) - 1:])[:3])
x = (rank + np.arange(count) % 7).astype(np.float64)
y = np.empty_like(x)
for _ in range(20):
    comm.Allreduce(x, y, op=MPI.SUM)
ok = np.array_equal(y, P * (np.arange(count) % 7) + P * (P - 1) / 2)
if rank == 0:
    print(f"allreduce_loop.py: P={P} count={count} ({8 * count} B) iters={iters}")
times = []
for _ in range(trials):
    comm.Barrier()
    t0 = MPI.Wtime()
    for _ in range(iters):
        comm.Allreduce(x, y, op=MPI.SUM)
    times.append(comm.reduce((MPI.Wtime() - t0) / iters, op=MPI.MAX, root=0))
ok = comm.allreduce(bool(ok), op=MPI.LAND)
if rank == 0:
    print("per-call us: " + " ".join(f"{t * 1e6:.3f}" for t in times))
    print(f"result: {'exact' if ok else 'WRONG'} (y[0..2] = {y[:3]})")
sys.exit(0 if ok else 1)
