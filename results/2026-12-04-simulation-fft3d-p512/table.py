#!/usr/bin/env python3
"""The fft3d cells of this folder as one table (ms per transform and in the transposes, timed
run; vendor = SMPI's mpich selector):  /usr/bin/python3 table.py [DIR]"""
import csv, glob, os, sys

d = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
rows = {}
for path in sorted(glob.glob(os.path.join(d, "*-P512-*.csv"))):
    plat, _, grid, *rest = os.path.basename(path)[:-4].split("-")
    with open(path, newline="") as f:
        for r in csv.DictReader(f):
            if r["warmup"] != "0":
                continue
            name = r["algorithm"] + (" (4 leaders)" if rest == ["leaders4"] else "")
            rows[(plat, int(grid), name)] = (float(r["time_s"]) * 1e3, float(r["alltoall_s"]) * 1e3,
                                             r["served"], r["bits_ok"])
order = ["vendor", "pairwise", "node_aware", "node_aware (4 leaders)", "auto"]
print("| platform | grid | B / dest (rows, columns) | algorithm | served (rows / columns) | ms per transform | all-to-all ms | transform vs vendor | all-to-all vs vendor |")
print("|---|--:|---|---|---|--:|--:|--:|--:|")
for plat in ("polaris", "fugaku", "aurora"):
    for grid in (256, 128, 64):
        v = rows.get((plat, grid, "vendor"))
        if not v:
            continue
        per = 16 * grid ** 3 // 512
        for name in order:
            r = rows.get((plat, grid, name))
            if not r:
                continue
            assert r[3] == "1", f"{plat} {grid} {name}: transforms not bit-identical"
            print(f"| {plat}-like | {grid}³ | {per // 16} B, {per // 32} B | {name} | {r[2]} | {r[0]:.3f} | "
                  f"{r[1]:.3f} | {v[0] / r[0]:.2f}x | {v[1] / r[1]:.2f}x |")
