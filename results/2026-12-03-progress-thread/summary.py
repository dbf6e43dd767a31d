#!/usr/bin/env python3
"""Medians over the launches of run.sh, per mode: collprobe's per-call median (blocking and
nonblocking forms) and overlap %, and pipecg's us/iteration and exposed allreduce per algorithm.
Usage: summary.py DIR [A B] (the OUT of run.sh, or of ab.sh with A B = before after); prints
Markdown."""
import glob, os, re, statistics, sys

d = sys.argv[1]
A, B = (sys.argv[2], sys.argv[3]) if len(sys.argv) > 3 else ("calls", "thread")
def read_probe(pattern):
    probe, overlap = {}, {}  # (mode, size, entry) -> [median_us] / [overlap %]
    for f in sorted(glob.glob(os.path.join(d, pattern))):
        mode = os.path.basename(f).split("-")[1]
        size, table = None, None
        for line in open(f):
            m = re.match(r"^(\d+ (?:B|KiB|MiB)) \(", line)
            if m:
                size, table = m.group(1), "probe"
                continue
            if line.strip().startswith("overlap ("):
                table = "overlap"
                continue
            t = line.split()
            if size is None or len(t) < 4 or t[0] in ("entry",):
                continue
            try:
                if table == "probe":
                    probe.setdefault((mode, size, t[0]), []).append(float(t[1]))
                elif table == "overlap":
                    overlap.setdefault((mode, size, t[0]), []).append(float(t[4].rstrip("%")))
            except ValueError:
                pass
    return probe, overlap


probe, overlap = read_probe("P*-*-*.txt")
_, sleep_overlap = read_probe("sleepP*-*-*.txt")
cg = {}  # (mode, algo) -> [(us/iter, allreduce)]
for f in sorted(glob.glob(os.path.join(d, "cg-P*-*-*.txt"))):
    mode = os.path.basename(f).split("-")[2]
    on = False
    for line in open(f):
        if line.startswith("algorithm"):
            on = True
            continue
        if on:
            t = line.split()
            if len(t) < 8 or not t[1].isdigit():
                on = False
                continue
            cg.setdefault((mode, t[0]), []).append((float(t[2]), float(t[8])))

def med(v):
    return statistics.median(v) if v else float("nan")

def rng(v):
    return f"{min(v):.2f}-{max(v):.2f}" if v else "-"

sizes = sorted({k[1] for k in probe}, key=lambda s: float(s.split()[0]) * {"B": 1, "KiB": 1024, "MiB": 1 << 20}[s.split()[1]])
entries = []
for k in probe:
    if k[2] not in entries:
        entries.append(k[2])
print("## collprobe: median us per call (median over launches; range)\n")
print(f"| size | entry | {A} | {B} | {B} / {A} |")
print("|---|---|--:|--:|--:|")
for s in sizes:
    for e in entries:
        a, b = probe.get((A, s, e), []), probe.get((B, s, e), [])
        if a and b:
            print(f"| {s} | {e} | {med(a):.2f} ({rng(a)}) | {med(b):.2f} ({rng(b)}) | {med(b)/med(a):.2f} |")
print("\n## collprobe: overlap % (osu_iallreduce's definition, no tests during the compute)\n")
print(f"| size | entry | {A} | {B} |")
print("|---|---|--:|--:|")
for s in sizes:
    for e in entries:
        a, b = overlap.get((A, s, e), []), overlap.get((B, s, e), [])
        if a and b:
            print(f"| {s} | {e} | {med(a):.1f} ({min(a):.1f}-{max(a):.1f}) | {med(b):.1f} ({min(b):.1f}-{max(b):.1f}) |")
if sleep_overlap:
    modes = [m for m in (A, B, B + "10") if any(k[0] == m for k in sleep_overlap)]
    print("\n## collprobe: overlap % with --overlap-compute sleep --overlap-factor 4 (the core free during the compute)\n")
    print("| size | entry | " + " | ".join(modes) + " |")
    print("|---|---|" + "--:|" * len(modes))
    keys = sorted({(k[1], k[2]) for k in sleep_overlap}, key=lambda k: (k[0].split()[1] != "KiB", k[0]))
    for k in keys:
        cells = []
        for m in modes:
            v = sleep_overlap.get((m,) + k, [])
            cells.append(f"{med(v):.1f} ({min(v):.1f}-{max(v):.1f})" if v else "-")
        print(f"| {k[0]} | {k[1]} | " + " | ".join(cells) + " |")
if cg:
    print("\n## pipecg, medium deck, overlapped: us per iteration and exposed allreduce (median over launches)\n")
    print("| algorithm | calls: us/iter | calls: allreduce | thread: us/iter | thread: allreduce | thread / calls (iter) |")
    print("|---|--:|--:|--:|--:|--:|")
    algos = []
    for k in cg:
        if k[1] not in algos:
            algos.append(k[1])
    for a in algos:
        c, t = cg.get((A, a), []), cg.get((B, a), [])
        if c and t:
            ci, ca = med([x[0] for x in c]), med([x[1] for x in c])
            ti, ta = med([x[0] for x in t]), med([x[1] for x in t])
            print(f"| {a} | {ci:.0f} | {ca:.1f} | {ti:.0f} | {ta:.1f} | {ti/ci:.2f} |")
