"""Reads a collbench log with h5py only, in the layout docs/trace-format.md documents, and
checks it: every table and field is there, rows are consistent, phases fit in their calls.
With the run's CSV as a third argument, checks its columns too: the historical ones first, then
vs_vendor_lo, vs_vendor_hi, vs_vendor_verdict consistent with each other.

    check_log.py LOG.h5 P [RUN.csv]"""
import csv
import math
import sys

try:
    import h5py
    import numpy as np
except ImportError as e:
    sys.exit(f"FAIL: {e}: the script tests need python3-h5py (scripts/setup-deps.sh installs it)")

path, P = sys.argv[1], int(sys.argv[2])
f = h5py.File(path, "r")
run = f["run"].attrs
assert run["format"] == b"pcoll-trace" and run["format_version"] == 1, dict(run)
assert run["nranks"] == P and run["complete"] == 1
for name, fields in {
        "calls": ["rank", "seq", "comm_seq", "iteration", "collective", "algorithm", "params",
                  "comm_size", "comm_root", "count", "type_size", "bytes", "t_enter", "t_exit",
                  "seconds", "phase_first", "nphases"],
        "phases": ["call", "rank", "name", "seconds"],
        "app": ["rank", "iteration", "name", "t_begin", "seconds"],
        "summary": ["rank", "collective", "algorithm", "params", "bytes", "metric", "n", "min",
                    "median_est", "max", "mean"],
        "clock": ["rank", "offset", "rtt", "measured_at", "offset_end", "rtt_end"],
        "collbench/results": ["algorithm", "bytes", "per_rank_bytes", "count", "n", "median",
                              "mad", "p10", "p90", "min", "max", "algbw", "busbw", "rounds",
                              "messages", "max_bytes_sent", "model_seconds", "vs_vendor",
                              "wrong"],
        "collbench/samples": ["algorithm", "bytes", "trial", "seconds"],
        "collbench/skew": ["algorithm", "bytes", "rank", "inside_median", "total_median"],
        "collbench/pingpong": ["bytes", "median", "mad", "p10", "p90"]}.items():
    got = list(f[name].dtype.names)
    assert got == fields, f"{name}: {got} != {fields}"
c, p = f["calls"][:], f["phases"][:]
assert len(c) > 0 and sorted(set(c["rank"])) == list(range(P))
assert (c["seconds"] >= 0).all()
for i in range(len(c)):
    first, n = int(c["phase_first"][i]), int(c["nphases"][i])
    assert (p["call"][first:first + n] == i).all()
    assert p["seconds"][first:first + n].sum() <= c["seconds"][i] + 1e-12, i
assert f["clock"]["offset"][0] == 0.0
res = f["collbench/results"][:]
assert (res["wrong"] == 0).all()
assert b"vendor" in set(res["algorithm"])
assert len(f["collbench/samples"]) == int(res["n"].sum())
assert f["collbench/pingpong"].attrs["alpha"] > 0
print(f"OK: {path}: {len(c)} calls, {len(p)} phases, {len(res)} results")

if len(sys.argv) > 3:
    with open(sys.argv[3], newline="") as fh:
        rows = list(csv.DictReader(fh))
        cols = list(rows[0].keys()) if rows else []
    old = ("P,bytes,per_rank_bytes,count,algorithm,n,median_s,mad_s,p10_s,p90_s,min_s,max_s,"
           "algbw_Bps,busbw_Bps,rounds,messages,max_bytes_sent,model_s,vs_vendor,wrong").split(",")
    assert cols == old + ["vs_vendor_lo", "vs_vendor_hi", "vs_vendor_verdict"], cols
    assert len(rows) == len(res), (len(rows), len(res))
    for r in rows:
        v = r["vs_vendor_verdict"]
        if r["algorithm"] == "vendor":
            assert v == "baseline" and r["vs_vendor_lo"] == "" and r["vs_vendor_hi"] == "", r
        elif int(r["n"]) < 3:
            assert v == "too few runs" and r["vs_vendor_lo"] == "", r
        else:
            lo, hi = float(r["vs_vendor_lo"]), float(r["vs_vendor_hi"])
            assert 0 < lo <= hi and math.isfinite(hi), r
            want = "faster" if lo > 1 else "slower" if hi < 1 else "within noise"
            assert v == want, (r, want)
    print(f"OK: {sys.argv[3]}: {len(rows)} rows with vs_vendor intervals")
