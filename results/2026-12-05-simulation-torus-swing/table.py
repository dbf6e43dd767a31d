#!/usr/bin/env python3
"""Swing on tori of one-rank nodes: simulated us per allreduce, and Swing's gains.
    table.py            (from anywhere; reads this folder's torus-*-P*.csv, prints the table)
Per (torus, P, S doubles per rank): every schedule simulated, then the per-dimension Swing's
speedup over the 1-D Swing, over Rabenseifner and over the best other schedule (pcoll's and
SMPI's mpich selector; > 1: Swing per dimension faster)."""
import csv, glob, os, re

HERE = os.path.dirname(os.path.abspath(__file__))
ALGOS = ["vendor", "swing", "swing:dims", "rabenseifner", "recursive_doubling", "ring",
         "recexch_rsag", "bine"]


def main():
    head = ["torus", "P", "S"] + ["mpich" if a == "vendor" else a for a in ALGOS] + [
        "dims/1-D", "dims/rab", "dims/best other", "best other"]
    lines = []
    for path in sorted(glob.glob(os.path.join(HERE, "torus-*-P*.csv")),
                       key=lambda p: int(re.search(r"-P(\d+)\.csv$", p).group(1))):
        torus, P = re.search(r"(torus-[0-9x]+)-P(\d+)\.csv$", path).groups()
        t = {}
        for r in csv.DictReader(open(path, newline="")):
            a = "swing:dims" if r["algorithm"].startswith("swing:swing_dims") else r["algorithm"]
            t.setdefault(int(r["per_rank_bytes"]) // 8, {})[a] = float(r["median_s"]) * 1e6
        for S, row in sorted(t.items()):
            d = row.get("swing:dims")
            others = {a: v for a, v in row.items() if a != "swing:dims"}
            best = min(others, key=others.get)
            lines.append([torus, P, str(S)]
                         + [f"{row[a]:.1f}" if a in row else "-" for a in ALGOS]
                         + [f"{row['swing'] / d:.2f}", f"{row['rabenseifner'] / d:.2f}",
                            f"{others[best] / d:.2f}", best.replace("vendor", "mpich")])
    w = [max(len(x) for x in col) for col in zip(head, *lines)]
    fmt = lambda r: "  ".join(x.rjust(n) for x, n in zip(r, w))
    print("\n".join([fmt(head), fmt(["-" * n for n in w])] + [fmt(r) for r in lines]))


if __name__ == "__main__":
    main()
