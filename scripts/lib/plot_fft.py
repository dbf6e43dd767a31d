#!/usr/bin/env python3
"""The 3-D FFT case study's table and time-split figure from fft3d CSV files.

Reads the per-run rows written by `fft3d --csv` (one file per rank count and grid, every
all-to-all algorithm and FFTW-MPI in each), prints per (grid, P, algorithm): the median time per
transform with its spread, the split (local FFT, pack, all-to-all, unpack) of the slowest rank,
the all-to-all share, GFlop/s and the speedups over vendor and over FFTW-MPI with bootstrap
intervals (scripts/lib/speedup.py: "within noise" when the interval contains 1.0), and draws
stacked bars of the split per algorithm and P.

    scripts/lib/plot_fft.py RUN.csv [RUN.csv ...] [-o fft-split.png]
"""
import argparse
import csv
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from speedup import format_speedup, spread, speedup_ci  # noqa: E402

PARTS = ("fft_s", "pack_s", "alltoall_s", "unpack_s")
ANCHOR = "fftw_mpi"


def load_rows(paths):
    rows, order = [], []
    for path in paths:
        with open(path, newline="") as f:
            for r in csv.DictReader(f):
                if r["algorithm"] not in order:
                    order.append(r["algorithm"])
                if r["warmup"] == "1":
                    continue
                for k in ("time_s", "gflops", "other_s") + PARTS:
                    r[k] = float(r[k])
                for k in ("ranks", "threads", "n0", "n1", "n2", "bytes_per_dest_max", "bits_ok"):
                    r[k] = int(r[k])
                r["grid"] = f"{r['n0']}x{r['n1']}x{r['n2']}"
                rows.append(r)
    return rows, order


def median(v):
    v = sorted(v)
    n = len(v)
    return (v[n // 2] + v[(n - 1) // 2]) / 2 if n else float("nan")


def summarize(rows, order):
    groups = {}
    for r in rows:
        groups.setdefault((r["grid"], r["ranks"]), {}).setdefault(r["algorithm"], []).append(r)
    out = []
    for (grid, P) in sorted(groups, key=lambda k: (k[0], k[1])):
        g = groups[(grid, P)]
        base = [r["time_s"] for r in g.get("vendor", [])]
        anchor = [r["time_s"] for r in g.get(ANCHOR, [])]
        for algo in [a for a in order if a in g]:
            rs = g[algo]
            t = [r["time_s"] for r in rs]
            med, mad, p10, p90, rel = spread(t)
            # The split shown is the median run's own (lower median for an even count), so the
            # parts add up to at most its time; medians taken part by part need not.
            mid = sorted(rs, key=lambda r: r["time_s"])[(len(rs) - 1) // 2]
            out.append({
                "grid": grid, "P": P, "algo": algo, "runs": len(rs), "median": med,
                "mad": mad, "p10": p10, "p90": p90,
                "decomp": f"{rs[0]['decomp']} {rs[0]['p0']}x{rs[0]['p1']}",
                "bytes": rs[0]["bytes_per_dest_max"], "threads": rs[0]["threads"],
                "parts": {k: mid[k] for k in PARTS}, "split_time": mid["time_s"],
                "gflops": median([r["gflops"] for r in rs]),
                "served": rs[0]["served"], "bits_ok": all(r["bits_ok"] for r in rs),
                "vs_vendor": speedup_ci(base, t) if base and algo != "vendor" else None,
                "vs_fftw": speedup_ci(anchor, t) if anchor and algo != ANCHOR else None,
            })
    return out


def print_table(stats):
    print(f"{'grid':>12} {'P':>3} {'decomp':>11} {'B/dest':>9} {'algorithm':<12} "
          f"{'ms/transform':>13} {'p10..p90':>15} {'fft':>8} {'pack':>8} {'a2a':>8} "
          f"{'unpack':>8} {'a2a%':>5} {'GF/s':>6}  {'vs vendor':<28} {'vs FFTW-MPI':<28} served")
    for s in stats:
        anchor = s["algo"] == ANCHOR
        p = s["parts"]
        split = ("       -        -        -        -     -" if anchor else
                 f"{p['fft_s'] * 1e3:8.3f} {p['pack_s'] * 1e3:8.3f} {p['alltoall_s'] * 1e3:8.3f} "
                 f"{p['unpack_s'] * 1e3:8.3f} {100 * p['alltoall_s'] / s['split_time']:5.1f}")
        vv = format_speedup(s["vs_vendor"]) if s["vs_vendor"] else "-"
        vf = format_speedup(s["vs_fftw"]) if s["vs_fftw"] else "-"
        print(f"{s['grid']:>12} {s['P']:>3} {s['decomp']:>11} {s['bytes']:>9} {s['algo']:<12} "
              f"{s['median'] * 1e3:13.3f} {s['p10'] * 1e3:7.2f}..{s['p90'] * 1e3:<7.2f} {split} "
              f"{s['gflops']:6.2f}  {vv:<28} {vf:<28} {s['served']}"
              + ("" if s["bits_ok"] else "  BITS DIFFER"))
    print("ms/transform: median over runs of the mean critical-path time of one forward or "
          "backward transform; split: the slowest rank's parts in the median run; B/dest: largest bytes "
          "per destination of a transpose; speedup = median(other) / median(this) with a 95% "
          "bootstrap interval (scripts/lib/speedup.py)")
    if all(s["bits_ok"] for s in stats):
        print("results: every run of every all-to-all algorithm gave bit-identical transforms")
    else:
        print("results: WARNING: some runs differ bitwise (see the CSV)")


def plot(stats, out_png):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    keys = []
    for s in stats:
        if (s["grid"], s["P"]) not in keys:
            keys.append((s["grid"], s["P"]))
    fig, axes = plt.subplots(1, len(keys), figsize=(5.0 * len(keys) + 1.0, 5.0), squeeze=False)
    colours = {"fft_s": "#4C72B0", "pack_s": "#DD8452", "alltoall_s": "#C44E52",
               "unpack_s": "#55A868", "other": "#BBBBBB", ANCHOR: "#8172B3"}
    for ax, (grid, P) in zip(axes[0], keys):
        ss = [s for s in stats if (s["grid"], s["P"]) == (grid, P)]
        for i, s in enumerate(ss):
            if s["algo"] == ANCHOR:
                ax.bar(i, s["split_time"] * 1e3, 0.7, color=colours[ANCHOR], edgecolor="black",
                       linewidth=0.5, label="FFTW-MPI (whole)")
                continue
            bottom = 0.0
            for k in PARTS:
                v = s["parts"][k] * 1e3
                ax.bar(i, v, 0.7, bottom=bottom, color=colours[k], edgecolor="black",
                       linewidth=0.5, label=k[:-2] if i == 0 else None)
                bottom += v
            rest = max(0.0, s["split_time"] * 1e3 - bottom)
            ax.bar(i, rest, 0.7, bottom=bottom, color=colours["other"], edgecolor="black",
                   linewidth=0.5, label="other" if i == 0 else None)
        ax.set_xticks(range(len(ss)))
        ax.set_xticklabels([s["algo"] for s in ss], rotation=30, ha="right", fontsize=8)
        ax.set_ylabel("time per transform, median run [ms]")
        ax.set_title(f"grid {grid}, P = {P} ({ss[0]['decomp']}, {ss[0]['threads']} thr/rank), "
                     f"{ss[0]['bytes']} B/dest", fontsize=9)
        ax.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.3), ncol=3)
        ax.grid(axis="y", alpha=0.3)
    fig.suptitle("pcoll fft3d: time split per transform by all-to-all algorithm, and FFTW-MPI",
                 fontsize=10)
    fig.tight_layout()
    fig.savefig(out_png, dpi=110)
    print(f"figure: {out_png}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("csv", nargs="+", help="fft3d --csv files")
    ap.add_argument("-o", "--out", default=None, help="PNG to write (default: none)")
    a = ap.parse_args()
    rows, order = load_rows(a.csv)
    if not rows:
        sys.exit("plot_fft.py: no timed rows in " + ", ".join(a.csv))
    stats = summarize(rows, order)
    print_table(stats)
    if a.out:
        plot(stats, a.out)


if __name__ == "__main__":
    main()
