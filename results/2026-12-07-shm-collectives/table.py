"""Tables of run.sh's CSVs: per collective and size, PMPI's median (us) and, per launch, each
entry's speedup over PMPI (PMPI median / entry median) with its 95% bootstrap interval
(scripts/lib/speedup.py), and what served `auto`.
    /usr/bin/python3 results/2026-12-07-shm-collectives/table.py DIR"""
import collections
import csv
import glob
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../scripts/lib"))
from speedup import speedup_ci, format_speedup  # noqa: E402
import numpy as np  # noqa: E402

d = sys.argv[1]
for coll in ["allreduce", "bcast", "reduce", "allgather", "alltoall", "barrier"]:
    files = sorted(glob.glob(os.path.join(d, f"{coll}-*.csv")))
    if not files:
        continue
    runs, served = [], collections.defaultdict(set)
    for f in files:
        data = collections.defaultdict(list)
        for line in open(f):
            if line.startswith("# served "):
                _, _, b, e, a = line.split()
                served[(int(b), e)].add(a)
        for row in csv.DictReader(l for l in open(f) if not l.startswith("#")):
            data[(int(row["bytes"]), row["entry"])].append(float(row["seconds"]))
        runs.append(data)
    sizes = sorted({b for r in runs for (b, _) in r})
    print(f"\n### {coll} (P = 2, {len(runs)} launches)\n")
    print("| bytes | PMPI us | shm / PMPI | auto / PMPI | auto served by | vendor path / PMPI |")
    print("|--:|--:|---|---|---|---|")
    for b in sizes:
        pm = [float(np.median(r[(b, "pmpi")])) * 1e6 for r in runs]
        cells = []
        for e in ["shm", "auto", "vendor"]:
            cells.append("<br>".join(format_speedup(speedup_ci(r[(b, "pmpi")], r[(b, e)]))
                                     for r in runs))
        srv = ", ".join(sorted(served.get((b, "auto"), {"auto?"})))
        print(f"| {b} | {' / '.join(f'{x:.2f}' for x in pm)} | {cells[0]} | {cells[1]} | {srv} | {cells[2]} |")
