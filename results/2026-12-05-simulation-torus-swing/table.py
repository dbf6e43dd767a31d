#!/usr/bin/env python3
"""Swing on tori of one-rank nodes: simulated us per allreduce, and Swing's gains.
    table.py            (from anywhere; reads this folder's torus-*-P*.csv, prints two tables)
Per (torus, P, S doubles per rank): every single-port schedule simulated, then the
per-dimension Swing's speedup over the 1-D Swing, over Rabenseifner and over the best other
schedule (pcoll's and SMPI's mpich selector; > 1: Swing per dimension faster). The second
table: the multiport versions (the -multiport.csv launches) beside them."""
import csv, glob, os, re

HERE = os.path.dirname(os.path.abspath(__file__))
ALGOS = ["vendor", "swing", "swing:dims", "rabenseifner", "recursive_doubling", "ring",
         "recexch_rsag", "bine"]
MULTI = ["swing:mp", "swing:dims:mp"]


def name(algorithm):
    """swing:swing_dims=2:swing_multiport=1 -> swing:dims:mp; others as they are."""
    if not algorithm.startswith("swing:"):
        return algorithm
    return "swing" + (":dims" if "swing_dims" in algorithm else "") + (
        ":mp" if "swing_multiport=1" in algorithm else "")


def cells():
    """(torus, P) -> {S: {algorithm: us}}, the launches of one torus and P merged."""
    out = {}
    for path in glob.glob(os.path.join(HERE, "torus-*-P*.csv")):
        torus, P = re.search(r"(torus-[0-9x]+)-P(\d+)(-multiport)?\.csv$", path).groups()[:2]
        t = out.setdefault((int(P), torus), {})
        for r in csv.DictReader(open(path, newline="")):
            t.setdefault(int(r["per_rank_bytes"]) // 8, {})[name(r["algorithm"])] = \
                float(r["median_s"]) * 1e6
    return out


def show(head, lines):
    w = [max(len(x) for x in col) for col in zip(head, *lines)]
    fmt = lambda r: "  ".join(x.rjust(n) for x, n in zip(r, w))
    print("\n".join([fmt(head), fmt(["-" * n for n in w])] + [fmt(r) for r in lines]))


def main():
    single, multi = [], []
    for (P, torus), t in sorted(cells().items()):
        for S, row in sorted(t.items()):
            d = row.get("swing:dims")
            others = {a: v for a, v in row.items() if a in ALGOS and a != "swing:dims"}
            best = min(others, key=others.get)
            single.append([torus, str(P), str(S)]
                          + [f"{row[a]:.1f}" if a in row else "-" for a in ALGOS]
                          + [f"{row['swing'] / d:.2f}", f"{row['rabenseifner'] / d:.2f}",
                             f"{others[best] / d:.2f}", best.replace("vendor", "mpich")])
            if "swing:dims:mp" not in row:
                continue
            m = row["swing:dims:mp"]
            rest = {a: v for a, v in row.items() if a != "swing:dims:mp"}
            rbest = min(rest, key=rest.get)
            multi.append([torus, str(P), str(S), f"{row['swing']:.1f}", f"{row['swing:mp']:.1f}",
                          f"{d:.1f}", f"{m:.1f}", f"{row['swing'] / row['swing:mp']:.2f}",
                          f"{d / m:.2f}", f"{row['rabenseifner'] / m:.2f}",
                          f"{rest[rbest] / m:.2f}", rbest.replace("vendor", "mpich")])
    show(["torus", "P", "S"] + ["mpich" if a == "vendor" else a for a in ALGOS]
         + ["dims/1-D", "dims/rab", "dims/best other", "best other"], single)
    if multi:
        print()
        show(["torus", "P", "S", "swing", "swing:mp", "swing:dims", "swing:dims:mp", "mp/1 (1-D)",
              "mp/1 (dims)", "dims:mp/rab", "dims:mp/best other", "best other"], multi)


if __name__ == "__main__":
    main()
