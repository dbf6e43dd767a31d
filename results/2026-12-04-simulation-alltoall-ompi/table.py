#!/usr/bin/env python3
"""node_aware against SMPI's mpich and ompi all-to-all at P = 256, 512, 1024 (8 B, 256 B and
4 KiB per destination), from the CSVs of this folder and of the P = 256 and P = 512 folders:
    /usr/bin/python3 results/2026-12-04-simulation-alltoall-ompi/table.py"""
import csv, glob, math, os

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCES = [os.path.join(HERE, "..", "2026-12-01-simulation-alltoall", "*-P256-mpich.csv"),
           os.path.join(HERE, "..", "2026-12-04-simulation-alltoall-p512", "*-P512-mpich*.csv"),
           os.path.join(HERE, "*-mpich*.csv")]
t = {}  # (platform, P, bytes per destination, entry) -> us
for pattern in SOURCES:
    for path in sorted(glob.glob(pattern)):
        plat = os.path.basename(path).split("-")[0]
        with open(path, newline="") as f:
            for r in csv.DictReader(f):
                if r["wrong"] not in ("0", "", "-1"):  # -1: timing-only buffers
                    raise SystemExit(f"{path}: {r['algorithm']} gave a wrong result")
                t[(plat, int(r["P"]), int(r["per_rank_bytes"]), r["algorithm"])] = float(r["median_s"]) * 1e6
for path in sorted(glob.glob(os.path.join(HERE, "*-ompi.csv"))):
    plat = os.path.basename(path).split("-")[0]
    with open(path, newline="") as f:
        for r in csv.DictReader(f):
            t[(plat, int(r["P"]), int(r["per_rank_bytes"]), "ompi")] = float(r["median_s"]) * 1e6

def fmt(x):
    return "-" if math.isnan(x) else f"{x:.2f}"

print("| platform | P | B / dest | mpich selector | ompi selector | node_aware, best leaders | leaders | vs mpich | vs ompi |")
print("|---|--:|--:|--:|--:|--:|--:|--:|--:|")
for plat in ("polaris", "fugaku", "aurora"):
    for P in (256, 512, 1024):
        for B in (8, 256, 4096):
            na = {k[3]: v for k, v in t.items() if k[:3] == (plat, P, B) and k[3].startswith("node_aware")}
            if not na:
                continue
            best = min(na, key=na.get)
            lead = best.split("=")[1] if "=" in best else "1"
            m = t.get((plat, P, B, "vendor"), math.nan)
            o = t.get((plat, P, B, "ompi"), math.nan)
            print(f"| {plat}-like | {P} | {B} | {fmt(m)} | {fmt(o)} | {na[best]:.2f} | {lead} | "
                  f"{m / na[best]:.2f}x | {'-' if math.isnan(o) else f'{o / na[best]:.2f}x'} |")
