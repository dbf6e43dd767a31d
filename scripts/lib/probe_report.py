#!/usr/bin/env python3
"""Tables from collprobe CSV files (apps/collprobe; one file per rank count P).

Per P, two markdown tables:
  1. rows = message sizes, columns = entries. pmpi's cell is its median time per call (us); every
     other cell is `pmpi time / entry time` (the ratio of medians: < 1 = slower than PMPI) with
     its 95% bootstrap interval (scripts/lib/speedup.py). A double dagger marks an entry whose
     median block is over 2x its fastest: most of its blocks lost the core to other processes,
     so that cell measures the machine's load rather than the call.
  2. pcoll's algorithm against Open MPI forced to the same algorithm (`X` against `ompi:X`):
     `ompi time / pcoll time` with its interval, marked "within noise" where it contains 1.0, and
     a dagger where Open MPI's own code runs another algorithm at that count (Open MPI 4.1
     coll/base: ring runs recursive doubling when count < P, Rabenseifner runs basic_linear when
     count < 2^floor(log2 P)).
Where some cells are so marked, a third table gives every entry's fastest block (us per call).
Then what served each pcoll entry where it was not the entry itself (what `auto` chose) and the
local reduction bandwidths measured in the same run.

A sample is one block: the per-call time (block time / calls) of the slowest rank.

    scripts/lib/probe_report.py P2.csv P3.csv P4.csv [-o report.md] [--check]

--check exits 1 unless every file has, for every size, the same number of samples (> 0) for
every entry it declares, pmpi and the --expect entries among them (the ctest uses it). Needs
numpy only.
"""
import argparse
import csv
import math
import os
import sys
from collections import OrderedDict

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from speedup import format_speedup, speedup_ci, spread  # noqa: E402

DAGGER = "\u2020"
DISTURBED_MARK = "\u2021"
DISTURBED = 2.0


def human(nbytes):
    for unit, shift in (("MiB", 20), ("KiB", 10)):
        if nbytes >= 1 << shift and nbytes % (1 << shift) == 0:
            return f"{nbytes >> shift} {unit}"
    return f"{nbytes} B"


def load(path):
    """One collprobe CSV -> dict(ranks, meta lines, calls, served, bandwidth, samples)."""
    run = {"path": path, "ranks": None, "library": "", "notes": [], "calls": {},
           "served": {}, "bandwidth": [], "samples": OrderedDict(), "entries": [],
           "declared": []}
    body = []
    with open(path, newline="") as f:
        for line in f:
            if not line.startswith("#"):
                body.append(line)
                continue
            key, _, rest = line[1:].strip().partition(" ")
            if key == "ranks":
                run["ranks"] = int(rest)
            elif key == "library":
                run["library"] = rest
            elif key == "calls":
                b, c = rest.split()
                run["calls"][int(b)] = int(c)
            elif key == "served":
                b, entry, algo = rest.split()
                run["served"].setdefault(int(b), {})[entry] = algo
            elif key == "entries":
                run["declared"] = rest.split()
            elif key == "bandwidth":
                name, best, med = rest.split()[:3]
                run["bandwidth"].append((name, float(best), float(med)))
            else:
                run["notes"].append(line[1:].strip())
    if run["ranks"] is None:
        raise SystemExit(f"{path}: no '# ranks' line: not a collprobe CSV")
    for r in csv.DictReader(body):
        b, e = int(r["bytes"]), r["entry"]
        if e not in run["entries"]:
            run["entries"].append(e)
        run["samples"].setdefault(b, {}).setdefault(e, []).append(float(r["seconds"]))
    if not run["samples"]:
        raise SystemExit(f"{path}: no samples")
    # Columns in the run's own order (pmpi, vendor, pcoll's algorithms, auto, ompi:), not in the
    # random order of the first block.
    seen = set(run["entries"])
    run["entries"] = [e for e in run["declared"] if e in seen] + \
        [e for e in run["entries"] if e not in run["declared"]]
    return run


def ompi_fallback(label, count, ranks):
    """The algorithm Open MPI 4.1's forced `label` really runs at this count, if another."""
    if label == "ompi:ring" and count < ranks:
        return "recursive_doubling"
    pof2 = 1 << (ranks.bit_length() - 1)
    if label == "ompi:rabenseifner" and count < pof2:
        return "basic_linear"
    return None


def disturbed(samples):
    """True when the median block is over DISTURBED x the fastest one: most blocks lost the core
    to another process (a loaded machine), so the median measures the load, not the call."""
    return len(samples) > 0 and float(np.median(samples)) > DISTURBED * min(samples)


def table_vs_pmpi(run):
    entries = run["entries"]
    head = "| size | pmpi us | " + " | ".join(e for e in entries if e != "pmpi") + " |"
    out = [head, "|---|--:|" + "--:|" * (len(entries) - 1)]
    marks = False
    for b, by in run["samples"].items():
        pm = by.get("pmpi", [])
        med, mad, *_ = spread(pm)
        cells = [human(b), f"{med * 1e6:.2f} ± {mad * 1e6:.2f}"]
        for e in entries:
            if e == "pmpi":
                continue
            cells.append(format_speedup(speedup_ci(pm, by.get(e, [])), verdict=False))
        for i, e in enumerate(["pmpi"] + [e for e in entries if e != "pmpi"]):
            if disturbed(by.get(e, [])):
                cells[i + 1] += " " + DISTURBED_MARK
                marks = True
        out.append("| " + " | ".join(cells) + " |")
    if marks:
        out += ["", f"{DISTURBED_MARK} median over {DISTURBED:g}x the fastest block: most blocks "
                "of this entry lost the core to other processes; the cell measures the load."]
    return out


def table_fastest(run):
    """The fastest block of every entry (us per call): on a loaded machine, the blocks that kept
    their cores. Times, not speedups: no interval can be given for a minimum."""
    entries = run["entries"]
    out = ["| size | " + " | ".join(entries) + " |", "|---|" + "--:|" * len(entries)]
    for b, by in run["samples"].items():
        cells = [human(b)] + [f"{min(by[e]) * 1e6:.2f}" if by.get(e) else "-" for e in entries]
        out.append("| " + " | ".join(cells) + " |")
    return out


def table_vs_ompi(run):
    pairs = [e for e in run["entries"] if "ompi:" + e in run["entries"]]
    if not pairs:
        return None
    out = ["| size | " + " | ".join(f"{p} vs ompi:{p}" for p in pairs) + " |",
           "|---|" + "--:|" * len(pairs)]
    daggers = False
    for b, by in run["samples"].items():
        cells = [human(b)]
        for p in pairs:
            txt = format_speedup(speedup_ci(by.get("ompi:" + p, []), by.get(p, [])))
            if ompi_fallback("ompi:" + p, b // 8, run["ranks"]):
                txt += " " + DAGGER
                daggers = True
            cells.append(txt)
        out.append("| " + " | ".join(cells) + " |")
    if daggers:
        out.append("")
        out.append(f"{DAGGER} Open MPI runs another algorithm at this count (4.1 coll/base: ring "
                   "-> recursive_doubling when count < P; rabenseifner -> basic_linear when "
                   "count < 2^floor(log2 P)).")
    return out


def report(run):
    P = run["ranks"]
    nblocks = {len(v) for by in run["samples"].values() for v in by.values()}
    lines = [f"### P = {P}", "",
             f"{os.path.basename(run['path'])}: {run['library']}; "
             f"{'/'.join(str(n) for n in sorted(nblocks))} blocks per entry and size; calls per "
             "block: " + ", ".join(f"{human(b)} {c}" for b, c in run["calls"].items()) + "."]
    lines += [f"- {n}" for n in run["notes"]]
    lines += ["", "Median time per call of PMPI_Allreduce (± MAD, us) and every entry's speedup "
              "over it, pmpi/entry (< 1: slower), with its 95% bootstrap interval:", ""]
    lines += table_vs_pmpi(run)
    if any(disturbed(v) for by in run["samples"].values() for v in by.values()):
        lines += ["", "Cells marked \u2021 measure the load: the fastest block of each entry "
                  "(us per call) shows what the calls cost when they kept their cores:", ""]
        lines += table_fastest(run)
    vs = table_vs_ompi(run)
    if vs:
        lines += ["", "pcoll's algorithm against Open MPI forced to the same algorithm "
                  "(ompi/pcoll: < 1 = pcoll slower):", ""] + vs
    else:
        lines += ["", "No ompi: entries in this run: no pcoll-vs-Open-MPI table."]
    served = ["; ".join(f"{e} -> {a}" for e, a in sorted(run["served"].get(b, {}).items()))
              for b in run["samples"]]
    if any(served):
        lines += ["", "Served by (where not the entry itself):"]
        lines += [f"- {human(b)}: {s}" for b, s in zip(run["samples"], served) if s]
    if run["bandwidth"]:
        lines += ["", "Local reduction bandwidth, 1 MiB doubles, 3 x 8 B per element, all ranks "
                  "at once (GB/s, best / median of the per-repetition slowest rank):"]
        bw = {n: (best, med) for n, best, med in run["bandwidth"]}
        for n, (best, med) in bw.items():
            lines.append(f"- {n}: {best:.2f} / {med:.2f}")
        if "stream_add" in bw and "pcoll_reduce" in bw and bw["stream_add"][0] > 0:
            lines.append(f"- pcoll_reduce / stream_add (best): "
                         f"{bw['pcoll_reduce'][0] / bw['stream_add'][0]:.0%}")
    return lines


def check(run, expect):
    """Problems with a run's completeness, as messages: every entry the run declares (and every
    one in `expect`) has the same number of samples, > 0, at every size."""
    bad = []
    missing = [e for e in ["pmpi"] + expect if e not in run["declared"]]
    if missing:
        bad.append(f"{run['path']}: entries missing from the run: {' '.join(missing)}")
    for b, by in run["samples"].items():
        counts = {e: len(by.get(e, [])) for e in run["declared"]}
        if len(set(counts.values())) != 1 or 0 in counts.values():
            bad.append(f"{run['path']}: {human(b)}: uneven or missing samples {counts}")
        if b not in run["calls"]:
            bad.append(f"{run['path']}: {human(b)}: no '# calls' line")
        for e, v in by.items():
            if any(not math.isfinite(x) or x <= 0 for x in v):
                bad.append(f"{run['path']}: {human(b)} {e}: a non-positive time")
    return bad


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("csv", nargs="+", help="collprobe --csv files")
    ap.add_argument("-o", "--output", help="also write the report (markdown) here")
    ap.add_argument("--check", action="store_true",
                    help="exit 1 unless every entry has the same number of samples at every size")
    ap.add_argument("--expect", default="",
                    help="with --check: space-separated entries every file must have")
    a = ap.parse_args()
    runs = sorted((load(p) for p in a.csv), key=lambda r: r["ranks"])
    lines = []
    for run in runs:
        lines += report(run) + [""]
    text = "\n".join(lines)
    print(text)
    if a.output:
        with open(a.output, "w") as f:
            f.write(text + "\n")
    if a.check:
        bad = [m for run in runs for m in check(run, a.expect.split())]
        for m in bad:
            print(f"probe_report: {m}", file=sys.stderr)
        if bad:
            sys.exit(1)
        print(f"probe_report: check ok ({len(runs)} file(s))", file=sys.stderr)


if __name__ == "__main__":
    main()
