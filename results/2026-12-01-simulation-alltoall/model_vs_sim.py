#!/usr/bin/env python3
"""The cost model's prediction (pcoll-info --plan ... on inputs/machines/PLATFORM.toml) beside
the simulated time of every schedule of this folder's CSVs.
  model_vs_sim.py PLATFORM P RANKS_PER_NODE [PCOLL_INFO]   (run from this folder)"""
import csv, os, sys

import subprocess

here = os.path.dirname(os.path.abspath(__file__))
root = os.path.join(here, '..', '..')
p, P, rpn = sys.argv[1], int(sys.argv[2]), sys.argv[3]
info = sys.argv[4] if len(sys.argv) > 4 else os.path.join(root, 'build/collectives/pcoll-info')
rows = [r for f in (f'{here}/{p}-P{P}-mpich.csv', f'{here}/{p}-P{P}-linear.csv') if os.path.exists(f)
        for r in csv.DictReader(open(f))]
for r in rows:
    a, t, per = r['algorithm'], float(r['median_s']) * 1e6, int(r['per_rank_bytes'])
    if a == 'vendor':
        print(f"{p:8} {per:5d} {a:32s} sim {t:10.2f}")
        continue
    al, *st = a.split(':')
    sets = sum([['--set', s] for s in st], [])
    out = subprocess.run([info, '--plan', 'alltoall', al, '--ranks', str(P), '--count', r['count'],
                          '--ranks-per-node', rpn, '--set', f'machine={root}/inputs/machines/{p}.toml'] + sets,
                         capture_output=True, text=True).stdout
    m = [float(l.split()[2]) for l in out.splitlines() if 'model (PCOLL_MACHINE)' in l][0]
    print(f"{p:8} {per:5d} {a:32s} sim {t:10.2f} model {m:10.2f} err {m / t - 1:+.0%}")
