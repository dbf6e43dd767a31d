#!/usr/bin/env python3
"""The k-means case study's table and Fig.-12-style figure from kmeans CSV files.

Reads the per-run rows written by `kmeans --csv` (one file per rank count, several algorithms
each), prints the paper's table -- P, deck, mean iteration-phase time with its run-to-run spread,
the time inside the three allreduces, the speedup over vendor -- beside the numbers the CHiArA
paper published for the deck (its [paper] table), and draws stacked bars like the paper's
Fig. 12: per configuration, compute + other (solid) under the time inside the three allreduces
(hatched), mean +- std above each bar.

    scripts/plot_kmeans.py RUN.csv [RUN.csv ...] [-o kmeans-fig12.png] [--decks inputs/kmeans]
"""
import argparse
import csv
import os
import statistics
import sys

try:
    import tomllib
except ImportError:  # Python < 3.11
    tomllib = None

HERE = os.path.dirname(os.path.abspath(__file__))
PHASES = ("ar_counts_s", "ar_sums_s", "ar_conv_s")


ORDER = []  # algorithms in the order of the first (warm-up) repetition: the --allreduce order


def load_rows(paths):
    rows = []
    for path in paths:
        with open(path, newline="") as f:
            for r in csv.DictReader(f):
                if r["algorithm"] not in ORDER:
                    ORDER.append(r["algorithm"])
                if r["warmup"] == "1":
                    continue
                for k in ("total_s", "compute_s", "other_s", "inertia") + PHASES:
                    r[k] = float(r[k])
                for k in ("ranks", "threads", "dim", "clusters", "points", "iterations"):
                    r[k] = int(r[k])
                rows.append(r)
    return rows


def paper_numbers(deck, decks_dir):
    path = os.path.join(decks_dir, f"{deck}.toml")
    if tomllib is None or not os.path.exists(path):
        return None
    with open(path, "rb") as f:
        return tomllib.load(f).get("paper")


def mean_std(v):
    return statistics.fmean(v), (statistics.stdev(v) if len(v) > 1 else 0.0)


def summarize(rows):
    """(deck, P, algorithm) -> statistics over the timed runs, in first-seen order."""
    groups = {}
    for r in rows:
        groups.setdefault((r["deck"], r["ranks"], r["algorithm"]), []).append(r)
    # vendor (the baseline) first, then the others in the order they were asked for
    keys = sorted(groups, key=lambda k: (k[0], k[1], k[2] != "vendor", ORDER.index(k[2])))
    out = {}
    for key in keys:
        rs = groups[key]
        total = [r["total_s"] for r in rs]
        ar = [sum(r[p] for p in PHASES) for r in rs]
        m, s = mean_std(total)
        out[key] = {
            "runs": len(rs), "mean": m, "std": s, "min": min(total), "max": max(total),
            "allreduce": statistics.fmean(ar),
            "counts": statistics.fmean(r["ar_counts_s"] for r in rs),
            "sums": statistics.fmean(r["ar_sums_s"] for r in rs),
            "conv": statistics.fmean(r["ar_conv_s"] for r in rs),
            "compute": statistics.fmean(r["compute_s"] for r in rs),
            "other": statistics.fmean(r["other_s"] for r in rs),
            "served": rs[0]["served_sums"], "threads": rs[0]["threads"],
            "iterations": rs[0]["iterations"], "dim": rs[0]["dim"], "clusters": rs[0]["clusters"],
            "digests": {r["digest"] for r in rs},
        }
    return out


def baseline_of(stats, deck, P):
    algos = [a for (d, p, a) in stats if d == deck and p == P]
    return "vendor" if "vendor" in algos else (algos[0] if algos else None)


def print_table(stats, decks_dir):
    hdr = (f"{'P':>5} {'deck':<8} {'algorithm':<26} {'iteration phase [s]':>20} {'min..max':>15} "
           f"{'allreduce [s]':>13} {'counts':>8} {'sums':>8} {'conv':>8} {'share':>6} "
           f"{'speedup':>8}")
    print(hdr)
    print("-" * len(hdr))
    decks = []
    for (deck, P, algo), s in stats.items():
        if deck not in decks:
            decks.append(deck)
    for deck in decks:
        for P in sorted({p for (d, p, _) in stats if d == deck}):
            base = baseline_of(stats, deck, P)
            for (d, p, algo), s in stats.items():
                if d != deck or p != P:
                    continue
                sp = stats[(deck, P, base)]["mean"] / s["mean"]
                name = algo if s["served"] in (algo, "") else f"{algo}({s['served']})"
                print(f"{P:>5} {deck:<8} {name:<26} {s['mean']:>9.4f} +- {s['std']:<7.4f} "
                      f"{s['min']:>7.4f}..{s['max']:<7.4f} {s['allreduce']:>13.4f} "
                      f"{s['counts']:>8.4f} {s['sums']:>8.4f} {s['conv']:>8.4f} "
                      f"{100 * s['allreduce'] / s['mean']:>5.1f}% {sp:>7.2f}x")
        any_s = next(s for (d, _, _), s in stats.items() if d == deck)
        print(f"      ({deck}: D = {any_s['dim']}, K = {any_s['clusters']}, "
              f"{any_s['iterations']} iterations per run, {any_s['threads']} thread(s) per rank, "
              f"mean +- sample std over {any_s['runs']} runs of the critical path; speedup = "
              f"vendor mean / mean)")
        paper = paper_numbers(deck, decks_dir)
        if paper:
            print(f"      paper, Section VI ({paper.get('machine', deck)}):")
            for P, v, c, sp in zip(paper["ranks"], paper["vendor_s"], paper["chiara_s"],
                                   paper["speedup"]):
                print(f"      {P:>5} {deck:<8} vendor {v:.2f} s -> CHiArA {c:.2f} s  "
                      f"({sp:.2f}x; {v / c:.3f}x from the rounded times)")
    digests = {dg for s in stats.values() for dg in s["digests"]}
    per_p = {}
    for (d, p, _), s in stats.items():
        per_p.setdefault((d, p), set()).update(s["digests"])
    if all(len(v) == 1 for v in per_p.values()):
        print("results: within each P every algorithm and run gave bit-identical centroids and "
              "labels" + (" (and the same digest at every P)"
                          if len(digests) == 1 and len(per_p) > 1 else ""))
    else:
        print("results: WARNING: digests differ between runs of one P (see the CSV)")


def plot(stats, out_png, decks_dir):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    decks = []
    for (deck, _, _) in stats:
        if deck not in decks:
            decks.append(deck)
    fig, axes = plt.subplots(1, len(decks), figsize=(4.8 * len(decks) + 1.5, 4.2), squeeze=False)
    colours = ["#4C72B0", "#DD8452", "#55A868", "#C44E52", "#8172B3", "#937860", "#DA8BC3"]
    for ax, deck in zip(axes[0], decks):
        Ps = sorted({p for (d, p, _) in stats if d == deck})
        algos = []
        for (d, _, a) in stats:
            if d == deck and a not in algos:
                algos.append(a)
        width = 0.8 / len(algos)
        top = 0
        for j, algo in enumerate(algos):
            xs, comp, ar, labels = [], [], [], []
            for i, P in enumerate(Ps):
                s = stats.get((deck, P, algo))
                if s is None:
                    continue
                xs.append(i + (j - (len(algos) - 1) / 2) * width)
                comp.append(s["mean"] - s["allreduce"])
                ar.append(s["allreduce"])
                labels.append(f"{s['mean']:.3f}\n±{s['std']:.3f}")
                top = max(top, s["mean"] + s["std"])
            c = colours[j % len(colours)]
            ax.bar(xs, comp, width * 0.95, color=c, alpha=0.55, edgecolor="black", linewidth=0.5,
                   label=f"{algo}: compute + other")
            bars = ax.bar(xs, ar, width * 0.95, bottom=comp, color=c, edgecolor="black",
                          linewidth=0.5, hatch="///", label=f"{algo}: 3 allreduces")
            for b, text in zip(bars, labels):
                ax.annotate(text, (b.get_x() + b.get_width() / 2, b.get_y() + b.get_height()),
                            xytext=(0, 2), textcoords="offset points", ha="center", va="bottom",
                            fontsize=7)
        s0 = next(s for (d, _, _), s in stats.items() if d == deck)
        ax.set_xticks(range(len(Ps)))
        ax.set_xticklabels([f"P={P}" for P in Ps])
        ax.set_ylim(0, top * 1.3 if top > 0 else 1)
        ax.set_ylabel("iteration phase, critical path [s]")
        ax.set_title(f"deck {deck}: D = {s0['dim']}, K = {s0['clusters']}, "
                     f"{s0['iterations']} iterations, {s0['threads']} thread(s)/rank", fontsize=9)
        ax.legend(fontsize=7, loc="upper left")
        ax.grid(axis="y", alpha=0.3)
    fig.suptitle("pcoll k-means: compute vs time inside the three allreduces (cf. CHiArA Fig. 12)",
                 fontsize=10)
    fig.tight_layout()
    fig.savefig(out_png, dpi=110)
    print(f"figure: {out_png}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("csv", nargs="+", help="kmeans --csv files")
    ap.add_argument("-o", "--out", default=None, help="PNG to write (default: none)")
    ap.add_argument("--decks", default=os.path.join(HERE, "..", "inputs", "kmeans"),
                    help="directory of the decks, for the paper's numbers")
    a = ap.parse_args()
    rows = load_rows(a.csv)
    if not rows:
        sys.exit("plot_kmeans: no timed runs in " + " ".join(a.csv))
    stats = summarize(rows)
    print_table(stats, a.decks)
    if a.out:
        plot(stats, a.out, a.decks)


if __name__ == "__main__":
    main()
