#!/usr/bin/env python3
"""Merges the simulated cells of earlier runs into OUT/cells for scripts/lib/auto_report.py.
    merge_cells.py OUT [--keep-folded]
From the repository root. Copies, in this order (a later file of the same name replaces an
earlier one), the cells/ of the runs the 2026-12-03 reports merged, then the recexch_rsag run's
CSVs (as auto-PLAT-PP-rsag.csv), the P = 2048 runs' cells, this folder's CSVs (as
auto-PLAT-PP-mixed-NAME.csv), then the cells of the runs made after it with the same groups
(LATER: the Aurora-like P = 2048 cells). Rows of recexch and recexch_rsag simulated before the mixed-radix
group (every folder but this one and LATER) are dropped where their group is not today's: where P is not
a power of the radix (capped at P), they ran MPICH's fold, which the same spec no longer names
(--keep-folded: kept, and of this folder's CSVs only the rows where both groups are the same:
the cells the model before it is judged on).
"""
import csv, glob, os, re, sys

RUNS = ["2026-11-30-simulation-paper-scale", "2026-12-01-simulation-auto",
        "2026-12-01-simulation-auto-p1024", "2026-12-01-simulation-auto-groups",
        "2026-12-01-simulation-recexch", "2026-12-02-simulation-lanes",
        "2026-12-03-simulation-p1024-lanes", "2026-12-03-simulation-recexch-rsag",
        "2026-12-03-simulation-p2048-polaris", "2026-12-03-simulation-p2048-fugaku"]
# Runs made after this folder, with the mixed-radix group: their rows are today's groups.
LATER = ["2026-12-04-simulation-p2048-aurora"]
HERE = os.path.dirname(os.path.abspath(__file__))

def power_of(P, k):
    q = 1
    while q < P:
        q *= k
    return q == P

def still_valid(spec, P):
    name, *params = spec.split(":")
    if name not in ("recexch", "recexch_rsag"):
        return True
    k = 4
    for p in params:
        if p.startswith("recexch_radix="):
            k = int(p.split("=")[1])
    return power_of(P, min(k, P))

def copy(src, dst, P, filter_old):
    with open(src, newline="") as f:
        rows = list(csv.DictReader(f))
    if not rows:
        return 0
    kept = [r for r in rows if not filter_old or still_valid(r["algorithm"], P)]
    with open(dst, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0].keys()))
        w.writeheader()
        w.writerows(kept)
    return len(rows) - len(kept)

def copy_cells(run, out, filter_old):
    """A run's cells/*.csv under their own names; the rows dropped."""
    dropped = 0
    for src in sorted(glob.glob(os.path.join("results", run, "cells", "*.csv"))):
        m = re.search(r"(?:auto|fig11)-[a-z]+-P(\d+)-", os.path.basename(src))
        if m:
            dropped += copy(src, os.path.join(out, os.path.basename(src)), int(m.group(1)), filter_old)
    return dropped

def main():
    out = os.path.join(sys.argv[1], "cells")
    keep = "--keep-folded" in sys.argv[2:]
    os.makedirs(out, exist_ok=True)
    dropped = 0
    for run in RUNS:
        d = os.path.join("results", run)
        dropped += copy_cells(run, out, not keep)
        for src in sorted(glob.glob(os.path.join(d, "*.csv"))):  # loose CSVs: rx-PLAT-PP, PLAT-PP
            m = re.fullmatch(r"(rx-)?([a-z]+)-P(\d+)(-S\d+)?\.csv", os.path.basename(src))
            if m and m.group(2) in ("polaris", "fugaku", "aurora"):
                tag = "rx" if m.group(1) else "rsag"
                dst = os.path.join(out, f"auto-{m.group(2)}-P{m.group(3)}-{tag}{m.group(4) or ''}.csv")
                dropped += copy(src, dst, int(m.group(3)), not keep)
    for run in LATER:
        copy_cells(run, out, keep)
    for src in sorted(glob.glob(os.path.join(HERE, "*.csv"))):
        m = re.fullmatch(r"([a-z]+)-P(\d+)-(.+)\.csv", os.path.basename(src))
        if m:
            copy(src, os.path.join(out, f"auto-{m.group(1)}-P{m.group(2)}-mixed-{m.group(3)}.csv"),
                 int(m.group(2)), keep)
    print(f"merge_cells.py: {len(os.listdir(out))} files in {out}; {dropped} rows of the folded group dropped")

main()
