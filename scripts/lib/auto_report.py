#!/usr/bin/env python3
"""auto against the oracle in simulation: one platform's table, CSV and heatmap.

    auto_report.py [--picks] OUT PLATFORM

Reads what scripts/simulate.sh --experiments auto leaves in OUT:
  cells/auto-PLATFORM-P<P>-model<G>.csv   collbench: vendor (SMPI's mpich selector, in group 0)
                                       and every distinct candidate schedule of the cost model,
                                       3 per group
  cells/auto-PLATFORM-P<P>-auto.csv    collbench: auto after a warm-up call (model alone:
                                       PCOLL_RULES=none, PCOLL_MACHINE=the platform's)
  cells/auto-PLATFORM-P<P>-ring.csv    ring, above P = 128 where the model ranks it high
  cells/auto-PLATFORM-P<P>-auto-ompi.csv   auto again, under SMPI's ompi selector
  cells/fig11-PLATFORM-P<P>-ompi-vendor.csv   SMPI's ompi selector
  auto-candidates/PLATFORM-P<P>.tsv    per S the model's candidates, fastest first (S, spec,
                                       model seconds): the first is auto's pick
and writes OUT/auto-PLATFORM.txt (the table and the summary), .csv and .png (auto / oracle).

Per cell (P, S doubles per rank): the oracle is the fastest simulated candidate (any
algorithm, any parameter value the model considers); auto / oracle; auto's pick and the
model's time for it beside the simulated one; auto against the stronger of the two selectors.
auto's own simulated time is the one judged; that it equals its pick's simulated time checks
that the simulated ranks decided what pcoll-info --select says.

--picks: judge auto by its pick's simulated time instead (no auto cell needed), where the
candidates' cells hold the pick. For a model that changed after the cells were simulated:
simulated times do not depend on the model, which only says which schedule auto runs, so
`scripts/simulate.sh --experiments auto ... --list` (which rewrites auto-candidates/ with the
current model) and this give the new model's picks against the same simulated schedules.
Cells whose pick was never simulated are listed, not judged. Writes auto-PLATFORM-picks.*.
"""
import csv
import glob
import math
import os
import re
import statistics
import sys


def rows(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def times(path):
    """collbench CSV -> {(algorithm, S): median seconds} (S in doubles per rank)."""
    out = {}
    for r in rows(path):
        if r.get("wrong", "0") not in ("", "0", "-1"):  # -1: timing-only buffers, not checked
            raise SystemExit(f"{path}: {r['algorithm']} gave a wrong result")
        out[(r["algorithm"], int(r["per_rank_bytes"]) // 8)] = float(r["median_s"])
    return out


def merged_times(paths, who="auto_report"):
    """times() over several CSVs, read in sorted order so that the result never depends on the
    directory's order; a (schedule, S) found in two files keeps the later file's time, and is
    reported on stderr where the two differ by more than 1% (a re-run at another commit: within
    1% is the same schedule simulated beside another group of candidates)."""
    out, seen = {}, {}
    for path in sorted(paths):
        for key, t in times(path).items():
            if key in out and abs(out[key] - t) > 0.01 * max(out[key], t):
                print(f"{who}: {key[0]} at S={key[1]}: {out[key]:.6g} s in {seen[key]}, "
                      f"{t:.6g} s in {path} (kept)", file=sys.stderr)
            out[key], seen[key] = t, path
    return out


def main():
    args = sys.argv[1:]
    picks = "--picks" in args
    args = [a for a in args if a != "--picks"]
    if len(args) != 2:
        raise SystemExit(__doc__)
    out, plat = args
    suffix = "-picks" if picks else ""
    cells = {}
    unjudged = []  # (P, S, pick) whose pick has no simulated time (--picks)
    for tsv in sorted(glob.glob(os.path.join(out, "auto-candidates", f"{plat}-P*.tsv"))):
        P = int(re.search(r"-P(\d+)\.tsv$", tsv).group(1))
        # vendor and the candidates in groups, auto, ring
        sim = merged_times(p for p in glob.glob(os.path.join(out, "cells", f"auto-{plat}-P{P}-*.csv"))
                           if not p.endswith("-auto-ompi.csv"))
        ompi_path = os.path.join(out, "cells", f"fig11-{plat}-P{P}-ompi-vendor.csv")
        ompi = times(ompi_path) if os.path.exists(ompi_path) else {}
        # auto under the ompi selector (its barrier and reductions around the call), to set
        # against that selector; without it, the ompi ratio sets two runs' surroundings apart.
        auto_ompi_path = os.path.join(out, "cells", f"auto-{plat}-P{P}-auto-ompi.csv")
        auto_ompi = times(auto_ompi_path) if os.path.exists(auto_ompi_path) else {}
        model = {}  # S -> [(spec, seconds)] fastest first
        with open(os.path.join(out, "auto-candidates", f"{plat}-P{P}.tsv")) as f:
            for line in f:
                S, spec, sec = line.rstrip("\n").split("\t")
                model.setdefault(int(S), []).append((spec, float(sec)))
        for S, cands in model.items():
            simulated = [(sim[(spec, S)], spec) for spec, _ in cands if (spec, S) in sim]
            pick, pick_model = cands[0]
            if picks:
                if (pick, S) not in sim:
                    unjudged.append((P, S, pick))
                    continue
                sim[("auto", S)] = sim[(pick, S)]
                auto_ompi.pop(("auto", S), None)  # a run of another model's pick
            if not simulated or ("auto", S) not in sim or ("vendor", S) not in sim:
                continue
            oracle_t, oracle = min(simulated)
            c = dict(P=P, S=S, oracle=oracle, oracle_s=oracle_t, auto_s=sim[("auto", S)],
                     pick=pick, pick_model_s=pick_model, pick_sim_s=sim.get((pick, S), math.nan),
                     mpich_s=sim.get(("vendor", S), math.nan),
                     ompi_s=ompi.get(("vendor", S), math.nan))
            c["ratio"] = c["auto_s"] / oracle_t
            c["auto_ompi_s"] = auto_ompi.get(("auto", S), math.nan)
            vendors = [v for v in (c["mpich_s"], c["ompi_s"]) if not math.isnan(v)]
            c["best_vendor_s"] = min(vendors) if vendors else math.nan
            # Each selector against auto run under it (the ompi one: the same run's auto where
            # simulated, else the mpich run's).
            ratios = [c["mpich_s"] / c["auto_s"]]
            if not math.isnan(c["ompi_s"]):
                ratios.append(c["ompi_s"] / (c["auto_s"] if math.isnan(c["auto_ompi_s"])
                                             else c["auto_ompi_s"]))
            ratios = [r for r in ratios if not math.isnan(r)]
            c["vs_vendor"] = min(ratios) if ratios else math.nan
            c["model_err"] = c["pick_model_s"] / c["pick_sim_s"] - 1
            c["errors"] = [m / sim[(spec, S)] - 1 for spec, m in cands if (spec, S) in sim]
            c["not_simulated"] = [spec for spec, _ in cands if (spec, S) not in sim]
            cells[(P, S)] = c
    if not cells:
        raise SystemExit(f"auto_report.py: no auto cells for {plat} in {out}/cells")

    us = lambda s: f"{s * 1e6:10.1f}"
    lines = [f"auto on the cost model alone vs the oracle, {plat}-like platform (simulated, "
             f"PCOLL_MACHINE=inputs/machines/{plat}.toml, PCOLL_RULES=none)"
             + ("; --picks: auto's time is its pick's simulated time (the pick of the model "
                "that wrote auto-candidates/), not a simulated auto run" if picks else ""), "",
             f"{'P':>5} {'S':>5} {'oracle us':>10} {'oracle':<44} {'auto us':>10} {'auto/or':>7} "
             f"{'model us':>10} {'err':>6} {'mpich us':>10} {'ompi us':>10} {'sel/auto':>9}  auto's pick"]
    for (P, S), c in sorted(cells.items()):
        lines.append(f"{P:5d} {S:5d} {us(c['oracle_s'])} {c['oracle']:<44} {us(c['auto_s'])} "
                     f"{c['ratio']:7.2f} {us(c['pick_model_s'])} {100 * c['model_err']:5.0f}% "
                     f"{us(c['mpich_s'])} {us(c['ompi_s'])} {c['vs_vendor']:9.2f}  {c['pick']}")
    n = len(cells)
    within = sum(1 for c in cells.values() if c["ratio"] <= 1.10)
    worst = max(cells.values(), key=lambda c: c["ratio"])
    below = min(cells.values(), key=lambda c: c["vs_vendor"])
    mismatch = [c for c in cells.values()
                if not math.isnan(c["pick_sim_s"]) and abs(c["auto_s"] / c["pick_sim_s"] - 1) > 0.02]
    all_err = [abs(e) for c in cells.values() for e in c["errors"]]
    pick_err = [abs(c["model_err"]) for c in cells.values() if not math.isnan(c["model_err"])]
    skipped = sorted({s for c in cells.values() for s in c["not_simulated"]})
    lines += ["",
              f"cells: {n}; auto within 10% of the oracle in {within} ({100 * within / n:.0f}%); "
              f"worst auto/oracle {worst['ratio']:.2f} (P={worst['P']}, S={worst['S']}: "
              f"{worst['pick']} vs {worst['oracle']})",
              f"auto vs the stronger selector (sel/auto: each selector over auto run under it, the lower; "
              f">= 0.95 wanted): lowest {below['vs_vendor']:.2f} "
              f"(P={below['P']}, S={below['S']}); cells below 0.95: "
              f"{sum(1 for c in cells.values() if c['vs_vendor'] < 0.95)}",
              f"model vs simulation: median |error| {100 * statistics.median(all_err):.1f}% over "
              f"{len(all_err)} (candidate, cell) pairs, {100 * statistics.median(pick_err):.1f}% "
              f"for auto's picks",
              "auto judged by its pick's simulated time (--picks); under the ompi selector too, so "
              "sel/auto there sets two runs' surroundings apart" if picks else
              f"auto's simulated time differs from its pick's by more than 2% in {len(mismatch)} cell(s)"
              + (": " + ", ".join(f"P={c['P']} S={c['S']}" for c in mismatch) if mismatch else
                 " (the simulated ranks chose what pcoll-info --select says)")]
    if unjudged:
        lines.append("not judged (auto's pick never simulated): "
                     + "; ".join(f"P={P} S={S}: {pick}" for P, S, pick in sorted(unjudged)))
    if skipped:
        where = sorted({(c["P"], s) for c in cells.values() for s in c["not_simulated"]})
        lines.append("not simulated (ring and naive above P = 128, ring where the model ranks it "
                     "below its 3 fastest at every S; above P = 512 the schedules beyond "
                     "simulate.sh's --oracle-span of the model's fastest at every S; the groups "
                     "whose simulation SimGrid's solver stopped or that ran past the time allowed, "
                     "each with its reason in OUT/cells/*.failed): "
                     + "; ".join(f"P={P}: {s}" for P, s in where))
    text = "\n".join(lines)
    with open(os.path.join(out, f"auto-{plat}{suffix}.txt"), "w") as f:
        f.write(text + "\n")
    print(text)

    keys = ["P", "S", "oracle", "oracle_s", "auto_s", "ratio", "pick", "pick_model_s",
            "pick_sim_s", "model_err", "mpich_s", "ompi_s", "auto_ompi_s", "best_vendor_s",
            "vs_vendor"]
    with open(os.path.join(out, f"auto-{plat}{suffix}.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(keys)
        for _, c in sorted(cells.items()):
            w.writerow([c[k] if not isinstance(c[k], float) else f"{c[k]:.6g}" for k in keys])

    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("auto_report.py: no matplotlib in this python3: no heatmap", file=sys.stderr)
        return
    Ps = sorted({P for P, _ in cells})
    Ss = sorted({S for _, S in cells})
    grid = [[cells[(P, S)]["ratio"] if (P, S) in cells else math.nan for S in Ss] for P in Ps]
    fig, ax = plt.subplots(figsize=(1.2 * len(Ss) + 2, 0.6 * len(Ps) + 1.6))
    im = ax.imshow(grid, cmap="RdYlGn_r", vmin=1.0, vmax=1.5, aspect="auto")
    for i, P in enumerate(Ps):
        for j, S in enumerate(Ss):
            if not math.isnan(grid[i][j]):
                ax.text(j, i, f"{grid[i][j]:.2f}", ha="center", va="center", fontsize=8)
    ax.set_xticks(range(len(Ss)), [str(S) for S in Ss])
    ax.set_yticks(range(len(Ps)), [str(P) for P in Ps])
    ax.set_xlabel("S (doubles per rank)")
    ax.set_ylabel("P")
    ax.set_title(f"auto / oracle, {plat}-like (simulated; 1.00 = auto found the best)")
    fig.colorbar(im, ax=ax)
    fig.tight_layout()
    fig.savefig(os.path.join(out, f"auto-{plat}{suffix}.png"), dpi=120)


if __name__ == "__main__":
    main()
