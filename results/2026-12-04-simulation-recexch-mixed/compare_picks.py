#!/usr/bin/env python3
"""auto's pick before and after the mixed-radix group, each judged by its simulated time.
    compare_picks.py BEFORE AFTER
BEFORE, AFTER: folders as scripts/lib/auto_report.py reads them (cells/, auto-candidates/):
BEFORE with the model's candidates under recexch_factors=power and the cells as simulated
(merge_cells.py --keep-folded), AFTER with today's candidates and cells (merge_cells.py).
Per (platform, P, S): both picks and their simulated times, before / after, and the best pcoll
schedule simulated in either (the oracle over both), and the best simulated before (any
schedule, the folded group included) over the new pick. Cells where a pick was never simulated are
listed, not judged.
"""
import math, os, sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts", "lib"))
from sim_tune import sim_times as candidate_times  # noqa: E402  (the cells' reader of the tuner)


def sim_times(out, plat, P):
    """{(spec, S): seconds} of pcoll's schedules (the selector's vendor rows left out)."""
    return {key: v for key, v in candidate_times(out, plat, P).items() if key[0] != "vendor"}


def picks(out, plat, P):
    p = {}
    path = os.path.join(out, "auto-candidates", f"{plat}-P{P}.tsv")
    if os.path.exists(path):
        for line in open(path):
            S, spec, _ = line.rstrip("\n").split("\t")
            p.setdefault(int(S), spec)
    return p

def main():
    before, after = sys.argv[1:3]
    print(f"{'platform':8} {'P':>5} {'S':>5}  {'before: pick':<46} {'us':>8}  {'after: pick':<32} {'us':>8} {'bef/aft':>7} {'after/oracle':>12} {'best before/after':>17}")
    ratios, unjudged, within, judged, new_best = [], [], 0, 0, 0
    for plat in ("polaris", "fugaku", "aurora"):
        for P in (64, 128, 256, 512, 1024, 2048):
            tb, ta = sim_times(before, plat, P), sim_times(after, plat, P)
            pb, pa = picks(before, plat, P), picks(after, plat, P)
            for S in sorted(pa):
                b, a = pb.get(S), pa[S]
                if b == a and (a, S) in ta:
                    continue  # unchanged pick: the earlier reports judge it
                if (b, S) not in tb or (a, S) not in ta:
                    unjudged.append(f"{plat} P={P} S={S} ({b} -> {a})")
                    continue
                oracle = min([v for (spec, s), v in ta.items() if s == S] + [tb[(b, S)]])
                best_before = min(v for (spec, s), v in tb.items() if s == S)
                new_best += ta[(a, S)] < best_before
                r = tb[(b, S)] / ta[(a, S)]
                ratios.append(r)
                judged += 1
                within += ta[(a, S)] / oracle <= 1.10
                print(f"{plat:8} {P:5d} {S:5d}  {b:<46} {tb[(b, S)] * 1e6:8.1f}  {a:<32} "
                      f"{ta[(a, S)] * 1e6:8.1f} {r:7.2f} {ta[(a, S)] / oracle:12.2f} {best_before / ta[(a, S)]:17.2f}")
    if ratios:
        g = math.exp(sum(map(math.log, ratios)) / len(ratios))
        print(f"\ncells whose pick changed, both simulated: {judged}; before / after: geomean {g:.2f}, "
              f"min {min(ratios):.2f}, max {max(ratios):.2f}; after within 10% of the oracle: {within}; "
              f"faster than every schedule simulated before: {new_best}")
    print("not judged (a pick never simulated): " + ("; ".join(unjudged) or "none"))

main()
