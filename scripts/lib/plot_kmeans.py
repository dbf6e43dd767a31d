#!/usr/bin/env python3
"""The k-means case study's table and Fig.-12-style figure from kmeans CSV files.

Reads the per-run rows written by `kmeans --csv` (one file per rank count, several algorithms
each), prints the paper's table -- P, deck, median iteration-phase time with its run-to-run
spread (MAD, p10..p90), the time inside the three allreduces, the speedup over vendor with its
95% bootstrap interval and verdict (scripts/lib/speedup.py: "within noise" when the interval
contains 1.0) -- beside the numbers the CHiArA paper published for the deck (its [paper] table),
and draws stacked bars like the paper's Fig. 12: per configuration, compute + other (solid)
under the time inside the three allreduces (hatched), median +- MAD above each bar, p10..p90 as
the error bar.

    scripts/lib/plot_kmeans.py RUN.csv [RUN.csv ...] [-o kmeans-fig12.png] [--decks inputs/kmeans]
                           [--target-width PCT [--check]]

Several CSVs of one deck and P (launches that added runs) are pooled.

--target-width PCT: say, for each speedup, whether its interval is narrower than +-PCT% and, if
not, about how many runs would make it so (the width shrinks as 1/sqrt(runs)). With --check it
prints nothing and exits 0 when every interval is that narrow, 1 when not.
"""
import argparse
import csv
import math
import os
import statistics
import sys

try:
    import tomllib
except ImportError:  # Python < 3.11
    tomllib = None

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from speedup import format_speedup, speedup_ci, spread  # noqa: E402

PHASES = ("ar_counts_s", "ar_sums_s", "ar_conv_s")


ORDER = []  # the --allreduce order: that of the first timed repetition (the design's first row)


def load_rows(paths):
    rows, first_rep = [], []
    for path in paths:
        with open(path, newline="") as f:
            for r in csv.DictReader(f):
                if r["warmup"] == "0" and r["run"] == "0":
                    first_rep.append((int(r.get("position") or 0), r["algorithm"]))
                if r["warmup"] == "1":
                    continue
                for k in ("total_s", "compute_s", "other_s", "inertia") + PHASES:
                    r[k] = float(r[k])
                for k in ("ranks", "threads", "dim", "clusters", "points", "iterations"):
                    r[k] = int(r[k])
                # CSVs from before the balanced order have no position column
                r["position"] = int(r["position"]) if r.get("position") not in (None, "") \
                    else None
                rows.append(r)
    for _, a in sorted(first_rep, key=lambda x: x[0]) + [(0, r["algorithm"]) for r in rows]:
        if a not in ORDER:
            ORDER.append(a)
    return rows


def paper_numbers(deck, decks_dir):
    path = os.path.join(decks_dir, f"{deck}.toml")
    if tomllib is None or not os.path.exists(path):
        return None
    with open(path, "rb") as f:
        return tomllib.load(f).get("paper")


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
        med, mad, p10, p90, _ = spread(total)
        out[key] = {
            "runs": len(rs), "total": total, "median": med, "mad": mad, "p10": p10, "p90": p90,
            "allreduce": statistics.median(sum(r[p] for p in PHASES) for r in rs),
            "counts": statistics.median(r["ar_counts_s"] for r in rs),
            "sums": statistics.median(r["ar_sums_s"] for r in rs),
            "conv": statistics.median(r["ar_conv_s"] for r in rs),
            "compute": statistics.median(r["compute_s"] for r in rs),
            "other": statistics.median(r["other_s"] for r in rs),
            "served": rs[0]["served_sums"], "threads": rs[0]["threads"],
            "iterations": rs[0]["iterations"], "dim": rs[0]["dim"], "clusters": rs[0]["clusters"],
            "digests": {r["digest"] for r in rs},
            "first": sum(1 for r in rs if r["position"] == 0)
            if all(r["position"] is not None for r in rs) else None,
        }
    return out


def baseline_of(stats, deck, P):
    algos = [a for (d, p, a) in stats if d == deck and p == P]
    return "vendor" if "vendor" in algos else (algos[0] if algos else None)


def speedups(stats):
    """[(deck, P, algorithm, baseline, Speedup)] for every non-baseline algorithm."""
    out = []
    for (deck, P, algo), s in stats.items():
        base = baseline_of(stats, deck, P)
        if algo != base:
            out.append((deck, P, algo, base, speedup_ci(stats[(deck, P, base)]["total"],
                                                        s["total"])))
    return out


def runs_needed(sp, target):
    """Runs per algorithm that would bring the interval's half-width to `target` (a fraction),
    from this one's width, which shrinks as 1/sqrt(runs)."""
    n = min(sp.n_base, sp.n_cand)
    return math.ceil(n * (sp.width / target) ** 2)


def print_table(stats, decks_dir, target=None):
    hdr = (f"{'P':>5} {'deck':<8} {'algorithm':<26} {'iteration phase [s]':>20} "
           f"{'p10..p90':>15} {'allreduce [s]':>13} {'counts':>8} {'sums':>8} {'conv':>8} "
           f"{'share':>6}  speedup [95% interval]")
    print(hdr)
    print("-" * len(hdr))
    decks, checks, all_checks = [], [], speedups(stats)
    for (deck, P, algo), s in stats.items():
        if deck not in decks:
            decks.append(deck)
    for deck in decks:
        for P in sorted({p for (d, p, _) in stats if d == deck}):
            base = baseline_of(stats, deck, P)
            for (d, p, algo), s in stats.items():
                if d != deck or p != P:
                    continue
                if algo == base:
                    sp_txt = "(baseline)"
                else:
                    sp = next(c[4] for c in all_checks if c[:3] == (d, p, algo))
                    sp_txt = format_speedup(sp)
                    if sp.verdict in ("faster", "slower"):
                        sp_txt += f" {sp.verdict}"
                    checks.append((deck, P, algo, base, sp))
                name = algo if s["served"] in (algo, "") else f"{algo}({s['served']})"
                print(f"{P:>5} {deck:<8} {name:<26} {s['median']:>9.4f} +- {s['mad']:<7.4f} "
                      f"{s['p10']:>7.4f}..{s['p90']:<7.4f} {s['allreduce']:>13.4f} "
                      f"{s['counts']:>8.4f} {s['sums']:>8.4f} {s['conv']:>8.4f} "
                      f"{100 * s['allreduce'] / s['median']:>5.1f}%  {sp_txt}")
            firsts = [(a, s["first"], s["runs"]) for (d, p, a), s in stats.items()
                      if d == deck and p == P and s["first"] is not None]
            if len(firsts) > 1:
                print("      ran first in its repetition: " +
                      ", ".join(f"{a} {k} of {n}" for a, k, n in firsts))
        any_s = next(s for (d, _, _), s in stats.items() if d == deck)
        runs = sorted({s["runs"] for (d, _, _), s in stats.items() if d == deck})
        runs_txt = f"{runs[0]}" if len(runs) == 1 else f"{runs[0]} to {runs[-1]}"
        print(f"      ({deck}: D = {any_s['dim']}, K = {any_s['clusters']}, "
              f"{any_s['iterations']} iterations per run, {any_s['threads']} thread(s) per rank; "
              f"critical path, median +- MAD and p10..p90 over {runs_txt} runs; speedup = "
              f"vendor median / median, 95% percentile-bootstrap interval over the runs, "
              f"'within noise' when it contains 1.0)")
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
    if target is not None:
        report_widths(checks, target)


def report_widths(checks, target):
    """The demo's promise: an interval narrower than +-target, or saying that it could not."""
    for deck, P, algo, base, sp in checks:
        what = f"{algo} vs {base}, P={P}, deck {deck}"
        if math.isnan(sp.width):
            print(f"interval: {what}: too few runs for an interval (need at least 3 each); "
                  f"pass --runs 10 or more")
        elif sp.width <= target:
            print(f"interval: {what}: +-{100 * sp.width:.1f}% over {sp.n_cand} runs, within the "
                  f"+-{100 * target:.0f}% target")
        else:
            print(f"interval: {what}: +-{100 * sp.width:.1f}% over {sp.n_cand} runs, WIDER than "
                  f"the +-{100 * target:.0f}% target: the runs varied too much to state this "
                  f"speedup that precisely; about {runs_needed(sp, target)} runs per algorithm "
                  f"(--runs, --max-runs) would be needed at this spread, or a quieter machine")


def ms_text(seconds):
    """Milliseconds to 3 significant digits, never in exponent form (41.0, 2.41, 860, 1630)."""
    v = 1e3 * seconds
    if not math.isfinite(v):
        return "-"
    if v == 0:
        return "0"
    mag = math.floor(math.log10(abs(v)))
    return f"{round(v, 2 - mag):.0f}" if mag >= 2 else f"{v:.{2 - mag}f}"


def bar_label(s, sp):
    """A bar's label: its median in ms, and for the non-baseline bars the speedup over the
    baseline with its 95% interval ('within noise' when the interval contains 1.0)."""
    text = f"{ms_text(s['median'])} ms"
    if sp is None:
        return text + "\n(baseline)"
    if math.isnan(sp.lo):
        return text + f"\n{sp.ratio:.2f}x (few runs)"
    noise = "\nwithin noise" if sp.verdict == "within noise" else ""
    return text + f"\n{sp.ratio:.2f}x [{sp.lo:.2f}, {sp.hi:.2f}]{noise}"


def plot(stats, out_png, decks_dir):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    decks = []
    for (deck, _, _) in stats:
        if deck not in decks:
            decks.append(deck)
    fig, axes = plt.subplots(1, len(decks), figsize=(6.4 * len(decks) + 1.5, 4.2), squeeze=False)
    colours = ["#4C72B0", "#DD8452", "#55A868", "#C44E52", "#8172B3", "#937860", "#DA8BC3"]
    sp_of = {c[:3]: c[4] for c in speedups(stats)}
    for ax, deck in zip(axes[0], decks):
        Ps = sorted({p for (d, p, _) in stats if d == deck})
        algos = []
        for (d, _, a) in stats:
            if d == deck and a not in algos:
                algos.append(a)
        width = 0.8 / len(algos)
        top = 0
        for j, algo in enumerate(algos):
            xs, comp, ar, labels, errs = [], [], [], [], []
            for i, P in enumerate(Ps):
                s = stats.get((deck, P, algo))
                if s is None:
                    continue
                xs.append(i + (j - (len(algos) - 1) / 2) * width)
                comp.append(1e3 * (s["median"] - s["allreduce"]))
                ar.append(1e3 * s["allreduce"])
                labels.append(bar_label(s, sp_of.get((deck, P, algo))))
                errs.append((1e3 * (s["median"] - s["p10"]), 1e3 * (s["p90"] - s["median"])))
                top = max(top, 1e3 * s["p90"])
            c = colours[j % len(colours)]
            ax.bar(xs, comp, width * 0.95, color=c, alpha=0.55, edgecolor="black", linewidth=0.5,
                   label=f"{algo}: compute + other")
            bars = ax.bar(xs, ar, width * 0.95, bottom=comp, color=c, edgecolor="black",
                          linewidth=0.5, hatch="///", label=f"{algo}: 3 allreduces")
            medians = [c0 + a0 for c0, a0 in zip(comp, ar)]
            if errs:  # the run-to-run spread: p10..p90 around the median
                ax.errorbar(xs, medians, yerr=list(zip(*errs)), fmt="none", ecolor="black",
                            elinewidth=0.8, capsize=3)
            for b, text, m, e in zip(bars, labels, medians, errs):  # above the p90 whisker
                ax.annotate(text, (b.get_x() + b.get_width() / 2, m + e[1]), xytext=(0, 2),
                            textcoords="offset points", ha="center", va="bottom", fontsize=7)
        s0 = next(s for (d, _, _), s in stats.items() if d == deck)
        ax.set_xticks(range(len(Ps)))
        ax.set_xticklabels([f"P={P}" for P in Ps])
        ax.set_ylim(0, top * 1.35 if top > 0 else 1)
        ax.set_ylabel("time per run, critical path [ms]\n(median; whiskers p10..p90)")
        ax.set_title(f"deck {deck}: D = {s0['dim']}, K = {s0['clusters']}, "
                     f"{s0['iterations']} iterations, {s0['threads']} thread(s)/rank", fontsize=9)
        ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.0, 1.0))  # clear of the bars
        ax.grid(axis="y", alpha=0.3)
    fig.suptitle("pcoll k-means: compute vs time inside the three allreduces (cf. CHiArA Fig. 12)\n"
                 "labels: median ms; speedup over vendor [95% bootstrap interval]",
                 fontsize=9)
    fig.tight_layout()
    fig.savefig(out_png, dpi=110)
    print(f"figure: {out_png}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("csv", nargs="+", help="kmeans --csv files")
    ap.add_argument("-o", "--out", default=None, help="PNG to write (default: none)")
    ap.add_argument("--decks", default=os.path.join(HERE, "..", "..", "inputs", "kmeans"),
                    help="directory of the decks, for the paper's numbers")
    ap.add_argument("--target-width", type=float, default=None, metavar="PCT",
                    help="check that each speedup's 95%% interval is narrower than +-PCT%%")
    ap.add_argument("--check", action="store_true",
                    help="with --target-width: print nothing, exit 0 if every interval is "
                         "narrower than +-PCT%%, 1 if not (reproduce-kmeans.sh --max-runs)")
    a = ap.parse_args()
    rows = load_rows(a.csv)
    if not rows:
        sys.exit("plot_kmeans: no timed runs in " + " ".join(a.csv))
    stats = summarize(rows)
    if a.target_width is not None and not 0 < a.target_width < 100:
        sys.exit(f"plot_kmeans: --target-width {a.target_width}: must be a percentage in (0, 100)")
    if a.check:
        if a.target_width is None:
            sys.exit("plot_kmeans: --check needs --target-width")
        met = all(not math.isnan(sp.width) and sp.width <= a.target_width / 100
                  for *_, sp in speedups(stats))
        sys.exit(0 if met else 1)
    print_table(stats, a.decks, None if a.target_width is None else a.target_width / 100)
    if a.out:
        plot(stats, a.out, a.decks)


if __name__ == "__main__":
    main()
