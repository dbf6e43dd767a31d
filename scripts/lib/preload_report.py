#!/usr/bin/env python3
"""The report of scripts/preload-demo.sh: per program and count, the time per MPI_Allreduce of
each configuration (median over trials, the slowest rank per trial; untraced runs) and its
speedup over the program run as is (scripts/lib/speedup.py: bootstrap interval, "within noise" when it contains
1.0); the program's own output; and from each run's pcoll trace, where the calls went.

    scripts/lib/preload_report.py DIR --configs "none disabled vendor ring rabenseifner"
"""
import argparse
import glob
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from speedup import format_speedup, speedup_ci  # noqa: E402

import h5py  # noqa: E402
import numpy as np  # noqa: E402

LABEL = {"none": "as is (no preload)", "disabled": "preloaded, PCOLL_DISABLE=1",
         "vendor": "preloaded, PCOLL_ALLREDUCE=vendor"}
PROGRAM = {"c": "allreduce_loop (C)", "py": "allreduce_loop.py (mpi4py)"}


def times(path):
    """Per-trial seconds per call, over every round in the output file."""
    text = open(path).read()
    if "result: exact" not in text or "WRONG" in text:
        sys.exit(f"{path}: the program did not report exact results")
    return [float(t) * 1e-6 for line in re.findall(r"per-call us:([^\n]*)", text)
            for t in line.split()]


def where_calls_went(path):
    if not os.path.exists(path):
        return "no pcoll trace written (no call reached pcoll)"
    with h5py.File(path, "r") as f:
        calls = f["calls"][:]
        P = int(f["run"].attrs["nranks"])
    keys = {}
    for c, a in zip(calls["collective"], calls["algorithm"]):
        keys[(c.decode(), a.decode())] = keys.get((c.decode(), a.decode()), 0) + 1
    return ", ".join(f"{c} by {a}: {n // P}/rank" for (c, a), n in sorted(keys.items()))


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("dir")
    p.add_argument("--configs", required=True)
    args = p.parse_args()
    configs = args.configs.split()
    runs = {}
    for path in glob.glob(os.path.join(args.dir, "*.out")):
        prog, count, cfg = os.path.basename(path)[:-4].split("-", 2)
        runs[(prog, int(count), cfg)] = path
    for prog, count in sorted({(k[0], k[1]) for k in runs}):
        base = times(runs[(prog, count, "none")])
        print(f"\n### {PROGRAM.get(prog, prog)}, {count} double(s) = {8 * count} B per call\n")
        print("| configuration | median us/call | p10-p90 us | trials | vs as is |")
        print("|---|--:|--:|--:|---|")
        for cfg in configs:
            t = np.array(times(runs[(prog, count, cfg)]))
            s = "-" if cfg == "none" else format_speedup(speedup_ci(base, t))
            print(f"| {LABEL.get(cfg, 'preloaded, PCOLL_ALLREDUCE=' + cfg)} | "
                  f"{np.median(t) * 1e6:.2f} | {np.percentile(t, 10) * 1e6:.2f}-"
                  f"{np.percentile(t, 90) * 1e6:.2f} | {len(t)} | {s} |")
        print("\nWhere the calls went (pcoll's trace of one more run of each, not timed):\n")
        for cfg in configs:
            trace = runs[(prog, count, cfg)][:-4] + ".h5"
            print(f"- {cfg}: {where_calls_went(trace)}")
        traced = open(runs[(prog, count, configs[-1])][:-4] + ".traced").read().strip()
        print(f"\nOutput of the traced {configs[-1]} run:\n\n```\n{traced}\n```")


if __name__ == "__main__":
    main()
