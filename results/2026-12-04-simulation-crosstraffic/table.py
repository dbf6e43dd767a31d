#!/usr/bin/env python3
"""The cells of run.sh side by side (xt: SimGrid's default cross-traffic, noxt: off) with the
cost model's replay (pcoll-info --plan), from the repository root:
    /usr/bin/python3 results/2026-12-04-simulation-crosstraffic/table.py [build/collectives/pcoll-info]"""
import csv, glob, os, re, subprocess, sys

HERE = os.path.dirname(os.path.abspath(__file__))
INFO = sys.argv[1] if len(sys.argv) > 1 else "build/collectives/pcoll-info"
RPN = {"fugaku": 48, "polaris": 32}

def cells(path):
    with open(path, newline="") as f:
        return {(r["algorithm"], int(r["per_rank_bytes"]) // 8): float(r["median_s"]) * 1e6
                for r in csv.DictReader(f)}

def model(plat, P, spec, S):
    name, *params = spec.split(":")
    cmd = [INFO, "--plan", "allreduce", name, "--ranks", str(P), "--count", str(S * P),
           "--ranks-per-node", str(RPN[plat]), "--set", f"machine=inputs/machines/{plat}.toml"]
    for p in params:
        cmd += ["--set", p]
    out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
    return float(re.search(r"^\s+replayed\s+([\d.]+) us", out, re.M).group(1))

print(f"{'platform':8} {'P':>4} {'S':>5} {'schedule':52} {'sim xt us':>10} {'sim noxt us':>11} "
      f"{'xt/noxt':>7} {'model us':>9} {'model/xt':>8} {'model/noxt':>10}")
for path in sorted(glob.glob(os.path.join(HERE, "*-xt.csv")),
                   key=lambda p: (os.path.basename(p).split("-")[0], int(re.search(r"-P(\d+)-", p).group(1)))):
    plat, Pp, _ = os.path.basename(path).split("-")
    P = int(Pp[1:])
    xt, noxt = cells(path), cells(path.replace("-xt.csv", "-noxt.csv"))
    for (spec, S), t in sorted(xt.items(), key=lambda kv: (kv[0][1], kv[0][0])):
        n = noxt[(spec, S)]
        m = model(plat, P, spec, S)
        print(f"{plat:8} {P:>4} {S:>5} {spec:52} {t:>10.1f} {n:>11.1f} {t / n:>7.2f} {m:>9.1f} "
              f"{m / t:>8.2f} {m / n:>10.2f}")
