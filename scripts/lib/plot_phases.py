#!/usr/bin/env python3
"""Stacked per-phase time per algorithm and size (like Fig. 9 of the CHiArA paper), from the
trace part of a log (/calls, /phases): per (algorithm, size) the median over calls and ranks of
each phase, plus the rest of the call outside the plan's phases; the vendor is one opaque bar.

    scripts/lib/plot_phases.py LOG.h5 [-o phases.png] [--sizes 8,65536,...]
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import pcolllog  # noqa: E402
from pcolllog import human, np  # noqa: E402
import matplotlib  # noqa: E402

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("log")
    ap.add_argument("-o", "--out", default="phases.png")
    ap.add_argument("--sizes", help="comma-separated byte sizes (default: up to 4 spread out)")
    a = ap.parse_args()
    log = pcolllog.Log(a.log)
    med = log.phase_medians()
    if not med:
        sys.exit(f"plot_phases: {a.log} has no per-call trace (/calls is empty or missing)")
    sizes = sorted({b for _, b in med})
    if a.sizes:
        sizes = [int(s) for s in a.sizes.split(",")]
    elif len(sizes) > 4:
        sizes = [sizes[int(round(i * (len(sizes) - 1) / 3))] for i in range(4)]
    algos = []
    for r in log.results() or [{"algorithm": k[0]} for k in med]:
        if r["algorithm"] not in algos:
            algos.append(r["algorithm"])
    phase_names = []
    for (_, _), (_, ph) in med.items():
        for n in ph:
            if n not in phase_names:
                phase_names.append(n)
    colors = dict(zip(phase_names + ["outside phases", "vendor (opaque)"],
                      plt.cm.tab20(np.linspace(0, 1, len(phase_names) + 2))))
    fig, axes = plt.subplots(1, len(sizes), figsize=(4.2 * len(sizes), 4.2), squeeze=False)
    for ax, b in zip(axes[0], sizes):
        for i, algo in enumerate(algos):
            if (algo, b) not in med:
                continue
            total, ph = med[(algo, b)]
            bottom = 0.0
            parts = list(ph.items()) if ph else [("vendor (opaque)", total)]
            if ph:
                parts.append(("outside phases", max(0.0, total - sum(ph.values()))))
            for name, sec in parts:
                ax.bar(i, sec * 1e6, bottom=bottom, color=colors[name], label=name)
                bottom += sec * 1e6
        ax.set_xticks(range(len(algos)), algos, rotation=60, ha="right", fontsize=8)
        ax.set_title(f"{human(b)} (P={log.nranks})")
        ax.set_ylabel("median time per call and rank (us)")
    handles, labels = [], []
    for ax in axes[0]:
        for h, l in zip(*ax.get_legend_handles_labels()):
            if l not in labels:
                handles.append(h)
                labels.append(l)
    fig.legend(handles, labels, loc="upper center", ncol=min(6, len(labels)), fontsize=8,
               bbox_to_anchor=(0.5, 1.08))
    fig.suptitle("per-phase time (median over calls and ranks)", y=1.13)
    fig.tight_layout()
    pcolllog.save(fig, a.out)


if __name__ == "__main__":
    main()
