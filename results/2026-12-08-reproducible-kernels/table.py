#!/usr/bin/env python3
"""The allreduce tables of README.md from collprobe-P*-{before,after}-*.csv:
   /usr/bin/python3 results/2026-12-08-reproducible-kernels/table.py [DIR]
For every P, size and pcoll entry: reproducible / plain in the same launch (median of the
per-block times; 95% bootstrap interval of the ratio of medians), before and after."""
import collections, csv, glob, os, re, sys

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "..", "..", "scripts", "lib"))
from speedup import speedup_ci  # noqa: E402


def load(path):
    data = collections.defaultdict(list)
    for row in csv.DictReader(l for l in open(path) if not l.startswith("#")):
        data[(int(row["bytes"]), row["entry"])].append(float(row["seconds"]))
    return data


def cell(repro, plain):
    s = speedup_ci(repro, plain)  # median(repro) / median(plain), with its interval
    return f"{s.ratio:.2f} [{s.lo:.2f}, {s.hi:.2f}]"


def human(b):
    return f"{b // 1048576} MiB" if b >= 1048576 else f"{b // 1024} KiB" if b >= 1024 else f"{b} B"


d = sys.argv[1] if len(sys.argv) > 1 else here
runs = collections.defaultdict(dict)
for f in sorted(glob.glob(os.path.join(d, "collprobe-P*-*-*.csv"))):
    m = re.search(r"collprobe-P(\d+)-(before|after)-(\d+)\.csv$", f)
    runs[int(m.group(1))][(m.group(2), int(m.group(3)))] = load(f)
for P in sorted(runs):
    launches = sorted(runs[P], key=lambda k: (k[1], k[0] != "before"))
    entries = sorted({e for data in runs[P].values() for (_, e) in data if e.endswith("+repro")})
    print(f"\n### P = {P}: reproducible / plain, same launch (median, 95% interval)\n")
    print("| size | entry | " + " | ".join(f"{w} {r}" for w, r in launches) + " |")
    print("|---|---|" + "---|" * len(launches))
    sizes = sorted({b for data in runs[P].values() for (b, _) in data})
    for b in sizes:
        for e in entries:
            base = e[: -len("+repro")]
            cells = []
            for k in launches:
                data = runs[P][k]
                cells.append(cell(data[(b, e)], data[(b, base)]) if (b, e) in data else "-")
            print(f"| {human(b)} | {base} | " + " | ".join(cells) + " |")

# The reproducible entries' own times, before and after (medians; launches of one P alternate).
import numpy as np  # noqa: E402
for P in sorted(runs):
    entries = sorted({e for data in runs[P].values() for (_, e) in data if e.endswith("+repro")})
    sizes = sorted({b for data in runs[P].values() for (b, _) in data})
    print(f"\n### P = {P}: the reproducible call's median time (us), each launch\n")
    launches = sorted(runs[P], key=lambda k: (k[1], k[0] != "before"))
    print("| size | entry | " + " | ".join(f"{w} {r}" for w, r in launches) + " |")
    print("|---|---|" + "---|" * len(launches))
    for b in sizes:
        for e in entries:
            cells = [f"{np.median(runs[P][k][(b, e)]) * 1e6:.2f}" if (b, e) in runs[P][k] else "-"
                     for k in launches]
            print(f"| {human(b)} | {e} | " + " | ".join(cells) + " |")
