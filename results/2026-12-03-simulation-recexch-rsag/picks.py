#!/usr/bin/env python3
"""Per cell of this run's CSVs: auto's pick under the current model (pcoll-info --candidates, the
model alone), its simulated time where it was simulated (here or in results/*/cells), and the
best pcoll schedule simulated at that P and S (the oracle, over every run).

  picks.py PCOLL_INFO CSV...
"""
import csv, glob, os, subprocess, sys

RPN = {"polaris": 32, "fugaku": 48, "aurora": 52}
here = os.path.dirname(os.path.abspath(__file__))
root = os.path.dirname(os.path.dirname(here))


def rows(path):
    with open(path) as f:
        return [r for r in csv.DictReader(l for l in f if not l.startswith("#"))]


def simulated(plat, P, extra):
    t = {}
    files = glob.glob(f"{root}/results/*/cells/*-{plat}-P{P}*.csv") + extra
    for f in files:
        for r in rows(f):
            try:
                if int(r["P"]) != P or r["algorithm"] in ("vendor", "auto"):
                    continue
                key = (int(r["per_rank_bytes"]) // 8, r["algorithm"])
                v = float(r["median_s"]) * 1e6
            except (KeyError, ValueError):
                continue
            t[key] = min(t.get(key, v), v)
    return t


info = sys.argv[1]
print(f"{'platform':8} {'P':>5} {'S':>5} {'pick':46} {'pick us':>9} {'oracle':46} {'us':>9} {'ratio':>6}")
for path in sys.argv[2:]:
    plat, p = os.path.basename(path)[:-4].split("-P")
    P = int(p)
    sim = simulated(plat, P, [path])
    for S in sorted({s for s, _ in sim}):
        out = subprocess.run([info, "--select", "allreduce", "--ranks", str(P), "--count", str(S * P),
                              "--ranks-per-node", str(RPN[plat]), "--set", "rules=none", "--set",
                              f"machine={root}/inputs/machines/{plat}.toml", "--candidates"],
                             capture_output=True, text=True).stdout.split("\n")[0].split("\t")[0]
        pick = sim.get((S, out))
        orc = min(((t, a) for (s, a), t in sim.items() if s == S))
        ps = f"{pick:9.2f}" if pick else "     n.s."
        ratio = f"{pick / orc[0]:6.2f}" if pick else "     -"
        print(f"{plat:8} {P:>5} {S:>5} {out:46} {ps} {orc[1]:46} {orc[0]:9.2f} {ratio}")
