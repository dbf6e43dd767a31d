#!/usr/bin/env python3
"""The CG case study's table and time-split figure from `cg --csv` files.

Reads the per-run rows (one file per rank count and solver, several allreduce algorithms each),
prints per (P, solver, algorithm): iterations, the median time per iteration on the critical path
with its MAD and p10..p90 over the timed runs, the allreduce share, and the speedup over vendor
with its bootstrap interval and verdict (scripts/lib/speedup.py: "within noise" when the
interval contains 1.0). pipecg rows run overlapped (PCOLL_Iallreduce under the row's algorithm,
the vendor's MPI_Iallreduce for vendor) are labelled `ALGORITHM+overlap` and compared with
pipecg's blocking vendor row. The figure stacks, per
algorithm, the mean time per iteration of halo, stencil, vector work, the allreduces (hatched)
and the rest, one panel per solver, bars grouped by P.

    scripts/lib/plot_cg.py RUN.csv [RUN.csv ...] [-o cg-split.png]
"""
import argparse
import csv
import os
import statistics
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from speedup import format_speedup, speedup_ci, spread  # noqa: E402

PARTS = ("halo", "stencil", "vector")  # then allreduce (the dot_* phases) and other
ORDER = []  # algorithms in first-seen order


def label_of(r):
    if r["solver"] == "pipecg" and r["overlap"] == "1":
        return r["algorithm"] + "+overlap"
    return r["algorithm"]


def load_rows(paths):
    rows = []
    for path in paths:
        with open(path, newline="") as f:
            for r in csv.DictReader(f):
                r["label"] = label_of(r)
                if r["label"] not in ORDER:
                    ORDER.append(r["label"])
                if r["warmup"] == "1":
                    continue
                for k in ("ranks", "threads", "iterations", "nx", "ny", "nz"):
                    r[k] = int(r[k])
                for k in list(r):
                    if k.endswith("_s"):
                        r[k] = float(r[k])
                rows.append(r)
    return rows


def summarize(rows):
    """(P, solver, label) -> statistics over the timed runs."""
    groups = {}
    for r in rows:
        groups.setdefault((r["ranks"], r["solver"], r["label"]), []).append(r)
    keys = sorted(groups, key=lambda k: (k[0], ("cg", "cg1", "pipecg").index(k[1])
                                         if k[1] in ("cg", "cg1", "pipecg") else 9,
                                         k[2] != "vendor", ORDER.index(k[2])))
    out = {}
    for key in keys:
        rs = groups[key]
        per_it = [r["per_iteration_s"] for r in rs]
        med, mad, p10, p90, _ = spread(per_it)

        def mean_per_it(col):
            return statistics.fmean(r[col] / max(1, r["iterations"]) for r in rs)

        out[key] = {
            "rows": rs, "per_it": per_it, "median": med, "mad": mad, "p10": p10, "p90": p90,
            "iterations": sorted({r["iterations"] for r in rs}),
            "parts": {p: mean_per_it(p + "_s") for p in PARTS},
            "allreduce": mean_per_it("allreduce_s"),
            "other": mean_per_it("other_s"),
            "total": statistics.fmean(r["per_iteration_s"] for r in rs),
            "share": statistics.fmean(r["allreduce_s"] / r["total_s"] for r in rs),
            "served": rs[0]["served"], "digests": {r["digest"] for r in rs},
            "grid": (rs[0]["nx"], rs[0]["ny"], rs[0]["nz"]), "threads": rs[0]["threads"],
            "reduction": rs[0]["reduction"], "pc": rs[0]["pc"], "deck": rs[0]["deck"],
        }
    return out


def print_table(stats):
    w = max([20] + [len(label) for (_, _, label) in stats])
    hdr = (f"{'P':>4} {'solver':<7} {'algorithm':<{w}} {'iters':>5} {'us/iter (median)':>16} "
           f"{'MAD':>7} {'p10..p90':>15} {'allreduce':>9} {'share':>6}  speedup over vendor")
    print(hdr)
    print("-" * (len(hdr) + 24))
    for (P, solver, label), s in stats.items():
        base = stats.get((P, solver, "vendor"))
        if base is None:
            sp = "-"
        elif base is s:
            sp = "(baseline)"
        else:
            c = speedup_ci(base["per_it"], s["per_it"])
            sp = format_speedup(c) + (f" {c.verdict}" if c.verdict in ("faster", "slower") else "")
        its = "/".join(str(i) for i in s["iterations"])
        print(f"{P:>4} {solver:<7} {label:<{w}} {its:>5} {1e6 * s['median']:>16.1f} "
              f"{1e6 * s['mad']:>7.1f} {1e6 * s['p10']:>7.1f}..{1e6 * s['p90']:<7.1f} "
              f"{1e6 * s['allreduce']:>9.1f} {100 * s['share']:>5.1f}%  {sp}")
    s0 = next(iter(stats.values()))
    print(f"     (deck {s0['deck']}, grid {'x'.join(map(str, s0['grid']))}, pc {s0['pc']}, "
          f"reduction {s0['reduction']}, {s0['threads']} thread(s) per rank; times per iteration "
          f"on the critical path over {len(s0['rows'])} timed runs; allreduce = mean us per "
          f"iteration inside the dot_* allreduces; speedup = median(vendor) / median(this), "
          f"95% bootstrap interval)")
    per_group = {}
    for (P, solver, _), s in stats.items():
        per_group.setdefault((P, solver), set()).update(s["digests"])
    exact = all(s["reduction"] in ("reproducible", "exact") for s in stats.values())
    if all(len(d) == 1 for d in per_group.values()):
        print("results: within each (P, solver) every algorithm and run gave bit-identical iterates")
    elif exact:
        print("results: WRONG: iterates differ within a (P, solver) although the reduction is reproducible")
    else:
        print("results: iterates differ in the last bits between algorithms (reduction = sum: "
              "the P partial sums are added in each algorithm's order)")


def plot(stats, out_png):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    solvers = []
    for (_, solver, _) in stats:
        if solver not in solvers:
            solvers.append(solver)
    fig, axes = plt.subplots(1, len(solvers), figsize=(5.2 * len(solvers) + 1, 4.4),
                             squeeze=False)
    colours = {"halo": "#4C72B0", "stencil": "#55A868", "vector": "#8172B3",
               "allreduce": "#C44E52", "other": "#BBBBBB"}
    for ax, solver in zip(axes[0], solvers):
        keys = [k for k in stats if k[1] == solver]
        Ps = sorted({k[0] for k in keys})
        xs, ticks = [], []
        x, top = 0, 0
        for P in Ps:
            for key in [k for k in keys if k[0] == P]:
                s = stats[key]
                bottom = 0
                for part in PARTS + ("allreduce", "other"):
                    v = 1e6 * (s["parts"][part] if part in PARTS else s[part])
                    ax.bar(x, v, 0.8, bottom=bottom, color=colours[part], edgecolor="black",
                           linewidth=0.4, hatch="///" if part == "allreduce" else None,
                           label=part if (x == 0) else None)
                    bottom += v
                top = max(top, bottom)
                ax.annotate(f"{100 * s['share']:.0f}%", (x, bottom), xytext=(0, 2),
                            textcoords="offset points", ha="center", fontsize=7)
                xs.append(x)
                ticks.append(f"{key[2]}\nP={P}")
                x += 1
            x += 0.6
        ax.set_xticks(xs)
        ax.set_xticklabels(ticks, rotation=60, ha="right", fontsize=7)
        ax.set_ylabel("time per iteration, critical path [us]")
        ax.set_title(f"{solver}: {stats[keys[0]]['iterations'][0]} iterations", fontsize=9)
        ax.grid(axis="y", alpha=0.3)
        ax.set_ylim(0, 1.35 * top if top > 0 else 1)
        ax.legend(fontsize=7, loc="upper center", ncol=5)
    fig.suptitle("pcoll CG: time split per iteration (label = allreduce share)", fontsize=10)
    fig.tight_layout()
    fig.savefig(out_png, dpi=110)
    print(f"figure: {out_png}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("csv", nargs="+", help="cg --csv files")
    ap.add_argument("-o", "--out", default=None, help="PNG to write (default: none)")
    a = ap.parse_args()
    rows = load_rows(a.csv)
    if not rows:
        sys.exit("plot_cg: no timed runs in " + " ".join(a.csv))
    stats = summarize(rows)
    print_table(stats)
    if a.out:
        plot(stats, a.out)


if __name__ == "__main__":
    main()
