#!/usr/bin/env python3
"""Simulated time of each schedule beside the cost model's prediction (the replay, as auto
ranks them), and the best pcoll schedule simulated before (results/*/cells, same P and S).

  table.py PCOLL_INFO CSV...   (CSV named PLATFORM-PN.csv, from run.sh)
"""
import csv, glob, os, re, subprocess, sys

RPN = {"polaris": 32, "fugaku": 48, "aurora": 52}
here = os.path.dirname(os.path.abspath(__file__))
root = os.path.dirname(os.path.dirname(here))


def rows(path):
    with open(path) as f:
        return [r for r in csv.DictReader(l for l in f if not l.startswith("#"))]


def model(info, plat, P, n, algo):
    name, *sets = algo.split(":")
    cmd = [info, "--plan", "allreduce", name, "--ranks", str(P), "--count", str(n),
           "--ranks-per-node", str(RPN[plat]), "--set",
           f"machine={root}/inputs/machines/{plat}.toml"]
    for s in sets:
        cmd += ["--set", s]
    out = subprocess.run(cmd, capture_output=True, text=True).stdout
    m = re.search(r"replayed\s+([\d.]+) us", out) or re.search(r"each rank's rounds\s+([\d.]+) us", out)
    return float(m.group(1)) if m else float("nan")


def before(plat, P):
    best = {}
    for f in glob.glob(f"{root}/results/*/cells/*-{plat}-P{P}*.csv"):
        if "recexch-rsag" in f:
            continue
        for r in rows(f):
            try:
                if int(r["P"]) != P or r["algorithm"] in ("vendor", "auto"):
                    continue
                S, t = int(r["per_rank_bytes"]) // 8, float(r["median_s"]) * 1e6
            except (KeyError, ValueError):
                continue
            if S not in best or t < best[S][0]:
                best[S] = (t, r["algorithm"])
    return best


info = sys.argv[1]
for path in sys.argv[2:]:
    plat, p = os.path.basename(path)[:-4].split("-P")
    P = int(p)
    prev = before(plat, P)
    print(f"{plat}-like, P = {P}")
    print(f"{'S':>5} {'schedule':34} {'sim us':>10} {'model us':>10} {'err':>6}  best before (us)")
    for r in rows(path):
        S, t = int(r["per_rank_bytes"]) // 8, float(r["median_s"]) * 1e6
        mod = model(info, plat, P, int(r["count"]), r["algorithm"])
        b = prev.get(S)
        bs = f"{b[1]} {b[0]:.2f} ({b[0] / t:.2f}x)" if b else "-"
        print(f"{S:>5} {r['algorithm']:34} {t:10.2f} {mod:10.2f} {100 * (mod / t - 1):+5.0f}%  {bs}")
    print()
