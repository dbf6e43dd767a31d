#!/usr/bin/env python3
"""The one table scripts/demo.sh prints: k-means, vendor vs pcoll, measured on this machine and
simulated at the paper's scale, beside the number the CHiArA paper published.
    demo_report.py --measured RUN.csv [RUN.csv ...] [--simulated CELL.csv ...]
                   [--decks inputs/kmeans] [--target-width PCT]
Measured rows: the kmeans CSVs of reproduce-kmeans.sh (median time per run on the critical path,
p10..p90 over the runs, speedup = ratio of medians with its 95% bootstrap interval, from
plot_kmeans.py's statistics, so the numbers are those of its table.txt). Simulated rows: kmeans
CSVs of SMPI cells (simulate.sh): deterministic, one run of a few iterations, scaled to the
deck's iterations per run; the speedup is a plain ratio, without an interval (there is no noise to
bound). Published rows: the deck's [paper] table. Times in ms, 2-3 significant digits; the table
fits 100 columns.
"""
import argparse
import contextlib
import io
import math
import os
import sys
import textwrap

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import plot_kmeans  # noqa: E402
from plot_kmeans import ms_text  # noqa: E402

try:
    import tomllib
except ImportError:  # Python < 3.11 (Debian 12 has 3.11)
    tomllib = None

WIDTH = 103


def say(text):
    """A note under the table, wrapped to the table's width."""
    print(textwrap.fill(text, WIDTH, subsequent_indent="           ", break_on_hyphens=False))


def deck_info(decks_dir, deck):
    path = os.path.join(decks_dir, f"{deck}.toml")
    if tomllib is None or not os.path.exists(path):
        return {}
    with open(path, "rb") as f:
        return tomllib.load(f)


def name_of(algo, s):
    served = s["served"]
    return algo if served in (algo, "") else f"{algo}(={served})"


def row(kind, P, deck, name, med, spread, share, speedup):
    line = (f"{kind:<10}{P:>4}  {deck:<7} {name:<22} {med:>6} {spread:<10} {share:>5}  "
            f"{speedup}")
    return line[:WIDTH]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--measured", nargs="+", required=True, help="kmeans CSVs measured here")
    ap.add_argument("--simulated", nargs="*", default=[], help="kmeans CSVs of SMPI cells")
    ap.add_argument("--decks", default=os.path.join(HERE, "..", "..", "inputs", "kmeans"))
    ap.add_argument("--target-width", type=float, default=None, metavar="PCT")
    a = ap.parse_args()

    measured = plot_kmeans.summarize(plot_kmeans.load_rows(a.measured))
    checks = plot_kmeans.speedups(measured)
    sp_of = {c[:3]: c[4] for c in checks}
    simulated = {}
    if a.simulated:
        plot_kmeans.ORDER.clear()
        simulated = plot_kmeans.summarize(plot_kmeans.load_rows(a.simulated))

    head1 = (f"{'':<10}{'':>4}  {'':<7} {'':<22} {'time per run [ms]':<17} {'allr.':>5}")
    head2 = (f"{'':<10}{'P':>4}  {'deck':<7} {'algorithm':<22} {'median':>6} {'p10..p90':<10} "
             f"{'share':>5}  speedup vs vendor [95% CI]")
    print(head1)
    print(head2)
    print("-" * WIDTH)
    published = []
    for (deck, P, algo), s in measured.items():
        base = plot_kmeans.baseline_of(measured, deck, P)
        sp = sp_of.get((deck, P, algo))
        if algo == base:
            sp_txt = "(baseline)"
        elif math.isnan(sp.lo):
            sp_txt = f"{sp.ratio:.2f}x (too few runs for an interval)"
        else:
            sp_txt = f"{sp.ratio:.2f}x [{sp.lo:.2f}, {sp.hi:.2f}] {sp.verdict}"
        print(row("measured", P, deck, name_of(algo, s), ms_text(s["median"]),
                  f"{ms_text(s['p10'])}..{ms_text(s['p90'])}",
                  f"{100 * s['allreduce'] / s['median']:.0f}%", sp_txt))
    for (deck, P, algo), s in simulated.items():
        info = deck_info(a.decks, deck)
        per_run = info.get("problem", {}).get("iterations", s["iterations"])
        scale = per_run / s["iterations"]  # deterministic: every iteration costs the same
        base = plot_kmeans.baseline_of(simulated, deck, P)
        paper = info.get("paper", {})
        pub = None
        if P in paper.get("ranks", []):
            i = paper["ranks"].index(P)
            pub = (paper["vendor_s"][i], paper["chiara_s"][i], paper["speedup"][i],
                   paper.get("machine", deck))
        if algo == base:
            sp_txt = "(baseline)"
        else:
            sp_txt = f"{simulated[(deck, P, base)]['median'] / s['median']:.2f}x"
            if algo == "chiara" and pub:
                sp_txt += f"   (paper: {pub[2]:.2f}x)"
        name = "vendor" if algo == "vendor" else name_of(algo, s)
        print(row("simulated", P, deck, name, ms_text(scale * s["median"]), "(1 run)",
                  f"{100 * s['allreduce'] / s['median']:.0f}%", sp_txt))
        if pub and algo == base:
            published.append((deck, P, pub))
    for deck, P, (v, c, sp, machine) in published:
        where = machine.split(":")[0].split(" (")[0]
        print(row("published", P, deck, "vendor", ms_text(v), f"({where})", "", "(baseline)"))
        print(row("published", P, deck, "chiara", ms_text(c), f"({where})", "",
                  f"{sp:.2f}x (paper, Section VI)"))
    print("-" * WIDTH)

    # What each kind of row is: measured, simulated, published.
    for (deck, P, _), s in list(measured.items())[:1]:
        runs = sorted({x["runs"] for x in measured.values()})
        say(f"measured:  here, P = {P} ranks ({s['threads']} thread each), deck {deck} "
              f"(D = {s['dim']}, K = {s['clusters']}, {s['iterations']} iterations per run), "
              f"{runs[0] if len(runs) == 1 else f'{runs[0]}-{runs[-1]}'} runs per algorithm; "
              f"allr. share = time inside the three allreduces / time per run; "
              f"median and p10..p90 over the runs, speedup = ratio of medians with its 95% "
              f"bootstrap interval ('within noise': it contains 1.0)")
    for (deck, P, _), s in list(simulated.items())[:1]:
        per_run = deck_info(a.decks, deck).get("problem", {}).get("iterations", s["iterations"])
        say(f"simulated: SimGrid SMPI, {P} simulated ranks on the {deck.capitalize()}-like platform model "
              f"(inputs/platforms/), deck {deck} (D = {s['dim']}, K = {s['clusters']}), the real "
              f"pcoll code with the compute time per iteration measured here and injected; "
              f"deterministic, so one run of {s['iterations']} iterations, scaled to the deck's "
              f"{per_run} per run: no noise, no interval; vendor = SMPI's re-implementation of "
              f"MPICH's selection")
    if published:
        say("published: the CHiArA paper's measured times on the real machine (its iteration "
            "count is not stated, so compare speedups, not times)")
    digests = {}
    for (d, p, _), s in list(measured.items()) + list(simulated.items()):
        digests.setdefault((d, p), set()).update(s["digests"])
    same = all(len(v) == 1 for v in digests.values())
    say("results:   " + ("every run of every algorithm gave bit-identical centroids and labels "
                         "(per P)" if same else "WARNING: digests differ between runs of one P"))
    if a.target_width is not None:
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            plot_kmeans.report_widths([(d, p, al, plot_kmeans.baseline_of(measured, d, p), sp)
                                       for (d, p, al), sp in sp_of.items()], a.target_width / 100)
        for line in out.getvalue().splitlines():
            say(line)
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
