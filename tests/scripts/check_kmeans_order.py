"""The k-means driver's run order, end to end, from its CSV (written by the kmeans_app_order
test): over one period of the Williams design (n algorithms, 2n timed runs for odd n) every
algorithm ran in every position, and directly after every other algorithm, equally often; so
the first position of a repetition was not always the same algorithm. Then plot_kmeans.py
states how often each ran first.

    check_kmeans_order.py RUN.csv N_ALGOS N_RUNS
"""
import collections
import csv
import os
import subprocess
import sys

path, n, runs = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
with open(path, newline="") as f:
    rows = [r for r in csv.DictReader(f) if r["warmup"] == "0"]
reps = collections.defaultdict(dict)
for r in rows:
    reps[int(r["run"])][int(r["position"])] = r["algorithm"]
assert sorted(reps) == list(range(runs)), sorted(reps)
orders = [[reps[k][j] for j in range(n)] for k in range(runs)]
algos = sorted(orders[0])
assert all(sorted(o) == algos for o in orders), orders
per = runs // n
at = collections.Counter((j, a) for o in orders for j, a in enumerate(o))
bad = {k: v for k, v in at.items() if v != per}
assert not bad and len(at) == n * n, f"positions not balanced: {dict(at)}"
pairs = collections.Counter((o[j - 1], o[j]) for o in orders for j in range(1, n))
assert len(pairs) == n * (n - 1) and set(pairs.values()) == {per}, \
    f"successions not balanced: {dict(pairs)}"
out = subprocess.run([sys.executable, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                                   "..", "..", "scripts", "lib", "plot_kmeans.py"),
                      path], capture_output=True, text=True, check=True).stdout
want = "ran first in its repetition: " + ", ".join(
    f"{a} {per} of {runs}" for a in ["vendor"] + [a for a in orders[0] if a != "vendor"])
assert want in out, out
print(f"OK: {path}: {runs} runs of {n} algorithms, each first {per} times; orders {orders}")
