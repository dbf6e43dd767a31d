#!/usr/bin/env python3
"""Heatmap of speedup over the vendor (vendor median / algorithm median, same run) over
(P, per-rank size), like Fig. 11 of the CHiArA paper, from one or more collbench logs.

With logs at several P: one row per P, the cell shows --algo (default: the best pcoll algorithm
of that cell, named in it). With a single P: one row per algorithm. A cell whose 95% bootstrap
interval over the trials contains 1.0 (scripts/lib/speedup.py) is marked "~" (within noise).

    scripts/lib/plot_speedup.py LOG.h5 [LOG.h5 ...] [-o speedup.png] [--algo NAME|best]
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import pcolllog  # noqa: E402
from pcolllog import human, np  # noqa: E402
from speedup import speedup_ci  # noqa: E402
import matplotlib  # noqa: E402

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.colors import TwoSlopeNorm  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("logs", nargs="+")
    ap.add_argument("-o", "--out", default="speedup.png")
    ap.add_argument("--algo", default="best")
    a = ap.parse_args()
    cells = {}  # (row label, per-rank bytes) -> (speedup, annotation)
    Ps = set()
    rows_all = []
    for path in a.logs:
        log = pcolllog.Log(path)
        if log.bench is None:
            sys.exit(f"plot_speedup: {path} has no /collbench results (not a collbench log)")
        Ps.add(log.nranks)
        samples = log.samples()
        for r in log.results():
            if r["algorithm"] == "vendor":
                continue
            base = samples.get(("vendor", int(r["bytes"])))
            mine = samples.get((r["algorithm"], int(r["bytes"])))
            r["noise"] = base is not None and mine is not None and \
                speedup_ci(base, mine).verdict == "within noise"
            rows_all.append((log.nranks, r))
    single_p = len(Ps) == 1
    for P, r in rows_all:
        if np.isnan(r["vs_vendor"]):
            continue
        if single_p:
            key = (r["algorithm"], int(r["per_rank_bytes"]))
            cells[key] = (r["vs_vendor"], "", r["noise"])
        elif a.algo in ("best", r["algorithm"]):
            key = (P, int(r["per_rank_bytes"]))
            if key not in cells or r["vs_vendor"] > cells[key][0]:
                cells[key] = (r["vs_vendor"], r["algorithm"] if a.algo == "best" else "",
                              r["noise"])
    if not cells:
        sys.exit("plot_speedup: no speedups in these logs (was vendor in --algos?)")
    ylabels = sorted({k[0] for k in cells}, key=lambda x: (isinstance(x, str), x))
    if single_p:  # keep collbench's algorithm order
        order = []
        for _, r in rows_all:
            if r["algorithm"] not in order:
                order.append(r["algorithm"])
        ylabels = [y for y in order if y in ylabels]
    xs = sorted({k[1] for k in cells})
    Z = np.full((len(ylabels), len(xs)), np.nan)
    for (y, x), (v, _, _) in cells.items():
        Z[ylabels.index(y), xs.index(x)] = v
    fig, ax = plt.subplots(figsize=(max(6, 0.55 * len(xs) + 2), 0.5 * len(ylabels) + 1.8))
    lo, hi = np.nanmin(Z), np.nanmax(Z)
    norm = TwoSlopeNorm(vcenter=1.0, vmin=min(lo, 0.99), vmax=max(hi, 1.01))
    im = ax.imshow(Z, cmap="RdBu", norm=norm, aspect="auto")
    for (y, x), (v, note, noise) in cells.items():
        label = f"{v:.2f}" + ("~" if noise else "") + (f"\n{note[:10]}" if note else "")
        ax.text(xs.index(x), ylabels.index(y), label, ha="center", va="center", fontsize=7)
    ax.set_xticks(range(len(xs)), [human(x) for x in xs], rotation=45, ha="right")
    ax.set_yticks(range(len(ylabels)), [str(y) for y in ylabels])
    ax.set_xlabel("per-rank segment (message bytes / P)")
    ax.set_ylabel("algorithm" if single_p else "ranks P")
    title = f"speedup over vendor (>1 = faster), P={next(iter(Ps))}" if single_p else \
        f"speedup over vendor of {a.algo} (>1 = faster)"
    ax.set_title(title + "\n~ = within noise (95% bootstrap interval contains 1.0)", fontsize=10)
    fig.colorbar(im, ax=ax, label="vendor median / algorithm median")
    pcolllog.save(fig, a.out)


if __name__ == "__main__":
    main()
