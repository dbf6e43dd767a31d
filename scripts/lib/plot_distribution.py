#!/usr/bin/env python3
"""Per-size distributions of the call time (max over ranks per call), one box per algorithm,
whiskers at p5/p95 and every sample beyond them drawn, so tails stay visible.

    scripts/lib/plot_distribution.py LOG.h5 [-o distribution.png] [--sizes 8,65536,...]
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import pcolllog  # noqa: E402
from pcolllog import human  # noqa: E402
import matplotlib  # noqa: E402

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("log")
    ap.add_argument("-o", "--out", default="distribution.png")
    ap.add_argument("--sizes", help="comma-separated byte sizes (default: up to 6 spread out)")
    a = ap.parse_args()
    log = pcolllog.Log(a.log)
    samples = log.samples()
    if not samples:
        sys.exit(f"plot_distribution: {a.log} has no samples")
    sizes = sorted({b for _, b in samples})
    if a.sizes:
        sizes = [int(s) for s in a.sizes.split(",")]
    elif len(sizes) > 6:
        sizes = [sizes[int(round(i * (len(sizes) - 1) / 5))] for i in range(6)]
    algos = []
    for r in log.results() or [{"algorithm": k[0]} for k in samples]:
        if r["algorithm"] not in algos:
            algos.append(r["algorithm"])
    cols = min(3, len(sizes))
    rows = (len(sizes) + cols - 1) // cols
    fig, axes = plt.subplots(rows, cols, figsize=(4.6 * cols, 3.6 * rows), squeeze=False)
    for ax, b in zip(axes.flat, sizes):
        data = [samples.get((al, b), []) * 1e6 for al in algos]
        ax.boxplot(data, whis=(5, 95), showfliers=True, flierprops={"markersize": 2})
        ax.set_yscale("log")
        ax.set_xticks(range(1, len(algos) + 1), algos, rotation=60, ha="right", fontsize=8)
        ax.set_title(f"{human(b)} (P={log.nranks})")
        ax.set_ylabel("us per call (max over ranks)")
    for ax in list(axes.flat)[len(sizes):]:
        ax.axis("off")
    fig.suptitle("call-time distributions: box = p25..p75, whiskers p5..p95, dots beyond")
    fig.tight_layout()
    pcolllog.save(fig, a.out)


if __name__ == "__main__":
    main()
