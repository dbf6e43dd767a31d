#!/usr/bin/env python3
"""auto / vendor per P and size (ratio of the two entries' speedups over PMPI in one report;
> 1: auto faster) from scripts/probe.sh reports:  ratios.py report-a.md [report-b.md ...]"""
import re, sys

cells = {}
for path in sys.argv[1:]:
    for sec in re.split(r"^### ", open(path).read(), flags=re.M)[1:]:
        P = sec.split("\n")[0].replace("P = ", "")
        for m in re.finditer(r"^\| (\S+ \S+) \| [\d.]+ ± [\d.]+ \| ([\d.]+)x \[[^]]*\] \| ([\d.]+)x", sec, re.M):
            cells.setdefault((P, m.group(1)), []).append(float(m.group(3)) / float(m.group(2)))
sizes = list(dict.fromkeys(s for _, s in cells))
print("| P | " + " | ".join(sizes) + " |")
print("|--:|" + "---|" * len(sizes))
for P in dict.fromkeys(p for p, _ in cells):
    print(f"| {P} | " + " | ".join(", ".join(f"{x:.2f}" for x in cells.get((P, s), [])) for s in sizes) + " |")
worst = min((min(v), k) for k, v in cells.items())
print(f"\nlowest auto / vendor: {worst[0]:.2f} (P = {worst[1][0]}, {worst[1][1]})")
