"""Reads the CG app's HDF5 results file and its pcoll trace with h5py only and checks that the
per-iteration time split is there and consistent: every run's phase_times[iteration][rank][phase]
sums, for the critical rank, to the run's per-phase totals; the trace holds each iteration of
each rank with the solver's named phases, and the allreduce calls made inside an iteration
carry its number (two per iteration for cg: dot_pAp and dot_rr).

    check_outputs.py RESULTS.h5 TRACE.h5 P
"""
import sys

try:
    import h5py
    import numpy as np
except ImportError as e:
    sys.exit(f"FAIL: {e}: needs python3-h5py (scripts/setup-deps.sh installs it)")

results, trace, P = sys.argv[1], sys.argv[2], int(sys.argv[3])
with h5py.File(results, "r") as f:
    a = f.attrs
    assert a["application"] == b"pcoll cg" and a["ranks"] == P, dict(a)
    phases = a["phases"].decode().split(",")
    assert phases == ["halo", "stencil", "vector", "dot_pAp", "dot_rr"], phases
    runs = list(f["runs"].values())
    assert len(runs) >= 2
    for g in runs:
        t = g["phase_times"][:]
        it = int(g.attrs["iterations"])
        assert t.shape == (it, P, len(phases)), t.shape
        assert (t >= 0).all()
        crit = int(g.attrs["critical_rank"])
        for k, name in enumerate(phases):
            assert abs(t[:, crit, k].sum() - g.attrs[name + "_s"]) < 1e-9, (name, crit)
        total = sum(g.attrs[n + "_s"] for n in phases) + g.attrs["other_s"]
        assert abs(total - g.attrs["total_s"]) < 1e-9
        assert abs(g["wall"][crit] - g.attrs["total_s"]) < 1e-12
    iterations = sum(int(g.attrs["iterations"]) for g in runs)

with h5py.File(trace, "r") as f:
    app, calls = f["app"][:], f["calls"][:]
    for rank in range(P):
        mine = app[app["rank"] == rank]
        its = set(int(i) for i in mine["iteration"] if i >= 0)
        assert len(its) == iterations, (rank, len(its), iterations)
        names = set(mine["name"])
        for name in phases + ["cg_run"]:
            assert name.encode() in names, (rank, name, names)
        c = calls[(calls["rank"] == rank) & (calls["iteration"] >= 0)]
        assert (c["collective"] == b"allreduce").all()
        assert len(c) == 2 * iterations, (rank, len(c), iterations)
print(f"OK: {results}, {trace}: {len(runs)} runs, {iterations} iterations per rank, "
      f"phases {','.join(phases)}")
