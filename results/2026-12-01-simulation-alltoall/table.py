#!/usr/bin/env python3
"""The all-to-all simulation table: per platform and bytes per destination, SMPI's MPICH selector,
every pcoll schedule simulated, the best of them (oracle), auto's time and its pick (from the
model, pcoll-info --select), auto / oracle and vendor / auto.
  table.py DIR [PCOLL_INFO]    (DIR holds PLATFORM-P256-{mpich,linear,auto}.csv)"""
import csv, glob, os, subprocess, sys

d = sys.argv[1]
info = sys.argv[2] if len(sys.argv) > 2 else os.path.join(os.path.dirname(__file__), '../../build/collectives/pcoll-info')
rpn = {'polaris': 32, 'fugaku': 48, 'aurora': 52}
machines = os.path.join(os.path.dirname(os.path.abspath(__file__)), '../../inputs/machines')
print(f"{'platform':8} {'B/dest':>6} {'vendor us':>10} {'oracle':>34} {'us':>8} {'auto pick':>32} {'auto us':>8} {'auto/orc':>8} {'vend/auto':>9}")
for plat in ['polaris', 'fugaku', 'aurora']:
    t = {}
    for f in glob.glob(f'{d}/{plat}-P256-*.csv'):
        for r in csv.DictReader(open(f)):
            t[(int(r['per_rank_bytes']), r['algorithm'])] = float(r['median_s']) * 1e6
    for per in sorted({k[0] for k in t}):
        cand = {a: v for (b, a), v in t.items() if b == per and a not in ('vendor', 'auto')}
        if not cand or (per, 'auto') not in t:
            continue
        orc = min(cand, key=cand.get)
        out = subprocess.run([info, '--select', 'alltoall', '--ranks', '256', '--count', str(per // 8),
                              '--ranks-per-node', str(rpn[plat]), '--set', 'rules=none', '--set',
                              f'machine={machines}/{plat}.toml'], capture_output=True, text=True).stdout
        pick = [l.split('-> ')[1].strip() for l in out.splitlines() if l.startswith('PCOLL_ALLTOALL')][0]
        a = t[(per, 'auto')]
        print(f"{plat:8} {per:6d} {t[(per, 'vendor')]:10.2f} {orc:>34} {cand[orc]:8.2f} {pick:>32} {a:8.2f} {a / cand[orc]:8.2f} {t[(per, 'vendor')] / a:9.2f}")
