#!/usr/bin/env python3
"""The Fig. 11 tables extended with the schedules added after the paper, per platform.
    table.py OUT [PLATFORM ...]        (default: polaris fugaku)
From the repository root, with Debian's /usr/bin/python3 (it imports scripts/lib/sim_report.py,
which needs matplotlib). OUT is a merge of the earlier runs' cells
(results/2026-12-04-simulation-recexch-mixed/merge_cells.py OUT); this folder's launches and
the P = 2048 new-schedules run are read on top (a later file of the same schedule and S wins).
Writes fig11-new-PLATFORM.{txt,csv} into this folder and prints the text.

Per (P, S): SMPI's mpich and ompi selectors; the best schedule pcoll had before the new ones
("paper-era": CHiArA and its variants, chiara_loglane with its default lanes (halving or
doubling by block size), Rabenseifner, ring, trees, recursive doubling, naive); each new one: Swing
(bandwidth-optimal), the Bine tree (latency-optimal), recexch (whole vector, k-nomial) and
recexch_rsag (k-nomial reduce-scatter + allgather) at their best simulated radix, CHiArA's lane
phases at their best simulated batch; the oracle (best pcoll schedule simulated) and the
stronger selector / oracle (*: one selector only). "-": never simulated with today's plan.
"""
import csv, glob, os, re, sys

ROOT = os.getcwd()
sys.path.insert(0, os.path.join(ROOT, "scripts", "lib"))
from auto_report import merged_times  # noqa: E402
from sim_report import batch_rule  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
EXTRA = [os.path.join(ROOT, "results", "2026-12-05-simulation-p2048-new-schedules")]
RPN = {"polaris": 32, "fugaku": 48, "aurora": 52}  # ranks per node (b_max of the batch rule)
PS = [64, 128, 256, 512, 1024, 2048]
SS = [1, 8, 64, 512, 4096]
OLD = ("chiara", "chiara_composed", "rabenseifner", "ring", "tree", "recursive_doubling", "naive")
NEW = [("swing", "swing"), ("bine", "bine tree"), ("recexch", "recexch"),
       ("recexch_rsag", "recexch_rsag"), ("lane=halving", "lanes halving"),
       ("lane=doubling", "lanes doubling"), ("lane=swing", "lanes swing"),
       ("lane=bine", "lanes bine")]


def column(spec, plat, P):
    """(column, parameter shown) of a collbench spec; None for the vendor, auto and others."""
    name, *params = spec.split(":")
    kv = dict(p.split("=", 1) for p in params)
    if name in ("recexch", "recexch_rsag"):
        return name, "r" + kv.get("recexch_radix", "4")
    if name == "chiara_loglane":
        # chiara_loglane's default lane (auto: halving or doubling by block size) is pcoll's
        # from before the new schedules; flat is the paper's LaneOp, chiara's own plan.
        lane = kv.get("chiara_lane", "auto")
        b = int(kv.get("chiara_batch", batch_rule(P, RPN[plat])))
        if lane in ("auto", "flat"):
            return "old", ("loglane" if lane == "auto" else "chiara") + f" b{b}"
        return "lane=" + lane, f"b{b}"
    if name in ("swing", "bine"):
        return name, name
    if name in OLD:  # the paper-era column: say which schedule (and its parameter) it was
        short = {"chiara_batch": "b", "tree_arity": "a", "chiara_krs": "krs", "chiara_kag": "kag"}
        return "old", " ".join([name] + [short.get(k, k) + v for k, v in kv.items()])
    return None


def cells_of(out, plat, P):
    paths = [p for p in glob.glob(os.path.join(out, "cells", f"*-{plat}-P{P}-*.csv"))
             if not p.endswith(("-ompi-vendor.csv", "-auto-ompi.csv"))]
    paths += glob.glob(os.path.join(out, f"auto-{plat}-P{P}-*.csv"))
    t = merged_times(paths, "table")
    later = [p for d in [*EXTRA, HERE] for p in sorted(glob.glob(os.path.join(d, f"{plat}-P{P}-*.csv")))]
    for p in later:  # after the merge: today's plans replace older runs of the same spec
        if not p.endswith("-ompi-vendor.csv"):
            t.update(merged_times([p], "table"))
    ompi_paths = [os.path.join(out, "cells", f"fig11-{plat}-P{P}-ompi-vendor.csv"),
                  os.path.join(HERE, f"{plat}-P{P}-ompi-vendor.csv")]
    ompi = merged_times([p for p in ompi_paths if os.path.exists(p)], "table")
    return t, ompi


def summary(plat, rows):
    """Per new schedule: the cells it was simulated in, where it beats the paper-era best, and
    by how much (paper-era time / its time); the oracle against the stronger selector."""
    out = ["", f"-- {plat}-like: each new schedule against the best paper-era schedule "
           "(paper-era time / new time, > 1: the new one faster) --"]
    for k, h in NEW:
        r = [x["paper_era_best_s"] / x[f"{k}_s"] for x in rows
             if x[f"{k}_s"] != "" and x["paper_era_best_s"] != ""]
        if not r:
            continue
        wins = sorted(v for v in r if v > 1)
        out.append(f"{h:>15}: {len(r)} cells, faster in {len(wins)}"
                   + (f" (by {wins[0]:.2f}-{wins[-1]:.2f}x)" if wins else "")
                   + f"; range {min(r):.2f}-{max(r):.2f}")
    new = [x for x in rows if x["oracle_s"] != "" and x["paper_era_best_s"] != ""
           and x["oracle_s"] < x["paper_era_best_s"]]
    gain = sorted(x["paper_era_best_s"] / x["oracle_s"] for x in new)
    out.append(f"a new schedule is the oracle in {len(new)} of {len(rows)} cells"
               + (f", {gain[0]:.2f}-{gain[-1]:.2f}x faster than the paper-era best "
                  f"(median {gain[len(gain) // 2]:.2f}x)" if gain else ""))
    sel = [min(v for v in (x["mpich_s"], x["ompi_s"]) if v != "") / x["oracle_s"]
           for x in rows if x["oracle_s"] != "" and (x["mpich_s"] != "" or x["ompi_s"] != "")]
    out.append(f"stronger selector / oracle: {min(sel):.2f}-{max(sel):.2f} over {len(sel)} "
               f"cells, below 1 in {sum(v < 1 for v in sel)}")
    return out


def main():
    out, plats = sys.argv[1], sys.argv[2:] or ["polaris", "fugaku"]
    text = []
    for plat in plats:
        rows, lines = [], []
        head = (["P", "S", "mpich", "ompi", "paper-era best"] + [h for _, h in NEW]
                + ["oracle", "sel/oracle"])
        for P in PS:
            t, ompi = cells_of(out, plat, P)
            for S in SS:
                best = {}  # column -> (seconds, parameter)
                for (spec, s), sec in t.items():
                    c = column(spec, plat, P) if s == S else None
                    if c and (c[0] not in best or sec < best[c[0]][0]):
                        best[c[0]] = (sec, c[1])
                old = best.get("old")
                pcoll = [v for v in best.values()]
                oracle = min(pcoll, default=None)
                sel = [x for x in (t.get(("vendor", S)), ompi.get(("vendor", S))) if x]
                us = lambda v, show=True: "-" if v is None else (
                    f"{v[0] * 1e6:.1f}" + (f" {v[1]}" if show else ""))
                ratio = (f"{min(sel) / oracle[0]:.2f}" + ("" if len(sel) == 2 else "*")
                         if sel and oracle else "-")
                r = [P, S, us((t[("vendor", S)], "")) if ("vendor", S) in t else "-",
                     us((ompi[("vendor", S)], "")) if ("vendor", S) in ompi else "-", us(old)]
                r += [us(best.get(k), k.startswith(("recexch", "lane="))) for k, _ in NEW]
                r += [us(oracle), ratio]
                lines.append([str(x).strip() for x in r])
                rows.append({"platform": plat, "P": P, "S": S,
                             "mpich_s": t.get(("vendor", S), ""), "ompi_s": ompi.get(("vendor", S), ""),
                             "paper_era_best_s": old[0] if old else "",
                             "paper_era_best": old[1] if old else "",
                             **{f"{k}_s": best[k][0] if k in best else "" for k, _ in NEW},
                             **{f"{k}_param": best[k][1] if k in best else "" for k, _ in NEW},
                             "oracle_s": oracle[0] if oracle else "",
                             "oracle": oracle[1] if oracle else ""})
        block_summary = summary(plat, rows)
        widths = [max(len(str(x)) for x in col) for col in zip(head, *lines)]
        fmt = lambda r: "  ".join(str(x).rjust(w) for x, w in zip(r, widths))
        block = [f"== Fig. 11 extended, {plat}-like: simulated us per allreduce (S doubles per "
                 "rank; r = radix, b = batch of the best simulated variant) ==",
                 fmt(head), fmt(["-" * w for w in widths])] + [fmt(r) for r in lines] + block_summary
        with open(os.path.join(HERE, f"fig11-new-{plat}.txt"), "w") as f:
            f.write("\n".join(block) + "\n")
        with open(os.path.join(HERE, f"fig11-new-{plat}.csv"), "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=list(rows[0].keys()))
            w.writeheader()
            w.writerows(rows)
        text += block + [""]
    print("\n".join(text))


if __name__ == "__main__":
    main()
