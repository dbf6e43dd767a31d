#!/usr/bin/env python3
"""ab.sh's launches in pairs (before r, after r, run back to back): per entry at 8 B, the ratio
after / before of each pair's median us per call, as median [min, max] over the pairs.
Usage: pairs.py DIR"""
import glob, os, re, statistics, sys

def read(f):
    out, size = {}, None
    for line in open(f):
        m = re.match(r"^(\d+ (?:B|KiB|MiB)) \(", line)
        if m:
            size = m.group(1)
            continue
        if line.strip().startswith("overlap ("):
            size = None
        t = line.split()
        if size and len(t) >= 4:
            try:
                out[(size, t[0])] = float(t[1])
            except ValueError:
                pass
    return out

d = sys.argv[1]
ratios = {}
for fb in sorted(glob.glob(os.path.join(d, "P2-before-*.txt"))):
    fa = fb.replace("-before-", "-after-")
    b, a = read(fb), read(fa)
    for k in b:
        if k in a:
            ratios.setdefault(k, []).append(a[k] / b[k])
print("| size | entry | after / before: median [min, max] over the pairs |")
print("|---|---|---|")
for (size, e), v in ratios.items():
    print(f"| {size} | {e} | {statistics.median(v):.2f} [{min(v):.2f}, {max(v):.2f}] |")
