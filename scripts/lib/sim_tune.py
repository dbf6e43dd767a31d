#!/usr/bin/env python3
"""Selection rules from simulated sweeps, checked on rank counts they were not fitted on.

    sim_tune.py OUT PLATFORM --fit "64 128 256" [--check "512"] [--fit-sizes "1 64 4096"]
        [--spread-ranks] [--table] --rpn N --out RULES.toml [--info build/collectives/pcoll-info]
        [--machine inputs/machines/PLATFORM.toml] [--origin key=value]...

Reads what scripts/simulate.sh --experiments auto leaves in OUT (the same cells as
auto_report.py: every distinct candidate schedule and SMPI's mpich selector, simulated per P at
S = 1 .. 4096 doubles per rank). Called by scripts/pcoll-tune.sh --smpi.

Fit: per fitted P and S (--fit-sizes, default every simulated S) the fastest simulated schedule (any algorithm, any parameter value, or
the vendor, SMPI's mpich selector) is the rule; simulated times are deterministic, so there is no
noise to confirm against, and the evidence is the simulated time, the runner-up and the vendor.
Adjacent sizes with the same choice merge; byte boundaries at the geometric midpoints of the
measured sizes (bytes = S x P x 8, the whole vector). By default only corrections are written:
a rule where the model alone's pick is more than 10% slower than the fastest, nothing where the
model already finds it (those calls keep the model's choice, which follows the machine
description to sizes and rank counts no sweep measured), and no further than half a step past
the smallest and largest size measured; --table writes every fitted cell, sizes 0 to inf. A rule covers its fitted P alone (other
rank counts: the model), or with --spread-ranks the P range to the geometric midpoints of its
fitted neighbours, the smallest down to half of it and the largest up to twice it.

Check: per cell not fitted on (a checked P, or a fitted P at a size outside --fit-sizes, which
the byte ranges interpolate), what auto then chooses (pcoll-info --select with the
rules and the platform's machine description, as the simulated ranks decide), its simulated time
(that of the same schedule in the candidate cells) against the oracle, beside the model alone's
pick. Also per fitted P (in-sample, for the record). Prints the table; writes RULES.toml.
"""
import argparse
import functools
import glob
import math
import os
import re
import statistics
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from auto_report import merged_times  # noqa: E402  (the cells' reader, wrong results refused)
from tune_rules import split_label, toml_str  # noqa: E402  (the rules file's spelling)


def sim_times(out, plat, P):
    """{(spec, S): seconds} over the candidate cells of (plat, P), the vendor included."""
    # auto's own cells are judged, not candidates
    return merged_times((p for p in glob.glob(os.path.join(out, "cells", f"auto-{plat}-P{P}-*.csv"))
                         if not re.search(r"-(auto|rules)(-ompi)?\.csv$", p)), "sim_tune")


@functools.lru_cache(maxsize=None)
def pick(info, P, S, rpn, machine, rules):
    """What auto chooses for (P, S) with these rules: the schedule label pcoll-info names."""
    cmd = [info, "--select", "allreduce", "--ranks", str(P), "--count", str(S * P),
           "--ranks-per-node", str(rpn), "--set", f"rules={rules}", "--set", f"machine={machine}"]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"sim_tune: {' '.join(cmd)} failed:\n{r.stderr}")
    m = re.search(r"^PCOLL_ALLREDUCE = auto -> (.+)$", r.stdout, re.M)
    if not m:
        sys.exit(f"sim_tune: no decision in the output of {' '.join(cmd)}")
    return ":".join(m.group(1).split())  # "tree tree_arity=4" -> collbench's "tree:tree_arity=4"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out")
    ap.add_argument("platform")
    ap.add_argument("--fit", required=True)
    ap.add_argument("--check", default="")
    ap.add_argument("--fit-sizes", default="", help="S values fitted on (default: all)")
    ap.add_argument("--table", action="store_true",
                    help="a rule for every fitted cell, not only where the model misses")
    ap.add_argument("--spread-ranks", action="store_true",
                    help="rules cover the P range around their fitted P, not that P alone")
    ap.add_argument("--out", dest="rules", required=True)
    ap.add_argument("--info", default="build/collectives/pcoll-info")
    ap.add_argument("--machine", default=None)
    ap.add_argument("--rpn", type=int, required=True, help="ranks per node of the simulated hosts")
    ap.add_argument("--origin", action="append", default=[])
    a = ap.parse_args()
    plat = a.platform
    machine = a.machine or os.path.join("inputs", "machines", f"{plat}.toml")
    fit = sorted(int(x) for x in a.fit.split())
    check = sorted(int(x) for x in a.check.split())
    if set(fit) & set(check):
        sys.exit("sim_tune: a rank count cannot be both fitted and checked")
    fit_sizes = {int(x) for x in a.fit_sizes.split()}
    fitted = lambda P, S: P in fit and (not fit_sizes or S in fit_sizes)

    # ---- fit ----
    text = ["# pcoll selection rules, written by scripts/pcoll-tune.sh --smpi (scripts/lib/sim_tune.py).",
            "# Per fitted P and message size (bytes = the whole vector): the fastest schedule in",
            "# a SimGrid SMPI simulation of the platform (deterministic: no noise to confirm", 
            "# against), among every distinct candidate schedule and SMPI's mpich selector.",
            "# Evidence: the simulated times of the choice, the runner-up and the vendor.",
            "# " + ("Every fitted cell has its rule." if a.table else
                    "Only where the model alone's pick is over 10% slower: elsewhere the model decides."),
            "[origin]"]
    for kv in a.origin:
        k, _, v = kv.partition("=")
        text.append(f"{k} = {toml_str(v)}")
    text.append(f"fitted_ranks = {toml_str(' '.join(map(str, fit)))}")
    text.append(f"checked_ranks = {toml_str(' '.join(map(str, check)))}")
    text.append(f"fitted_per_rank_doubles = {toml_str(' '.join(map(str, sorted(fit_sizes))) or 'all')}")
    text.append(f"rank_ranges = {toml_str('spread to the midpoints between fitted P' if a.spread_ranks else 'the fitted P alone')}")
    text.append("")
    for i, P in enumerate(fit):
        t = sim_times(a.out, plat, P)
        sizes = sorted({S for (_, S) in t if fitted(P, S)})
        if not sizes or not any(spec == "vendor" for spec, _ in t):
            sys.exit(f"sim_tune: no simulated candidates (with the vendor) for {plat} P={P} in {a.out}")
        p_lo, p_hi = P, P
        if a.spread_ranks:
            p_lo = P // 2 if i == 0 else math.isqrt(fit[i - 1] * P) + 1
            p_hi = 2 * P if i + 1 == len(fit) else math.isqrt(P * fit[i + 1])
        rows = []
        for S in sizes:
            ranked = sorted((sec, spec) for (spec, s), sec in t.items() if s == S)
            vendor = t[("vendor", S)]
            if not a.table:
                alone = pick(a.info, P, S, a.rpn, machine, "none")
                if t.get((alone, S), math.inf) <= 1.10 * ranked[0][0]:
                    ranked = [(t[(alone, S)], "model")] + ranked  # the model's own: no rule
            rows.append(dict(S=S, bytes=S * P * 8, choice=ranked[0][1], sec=ranked[0][0],
                             second=ranked[1] if len(ranked) > 1 else (math.nan, "-"),
                             vendor=vendor))
        merged = []
        for j, r in enumerate(rows):
            # Table: the whole byte axis. Corrections claim no more than half a step (in log
            # scale) past the smallest and the largest size measured.
            step = rows[1]["bytes"] / rows[0]["bytes"] if len(rows) > 1 else 2.0
            if j > 0:
                lo = math.isqrt(rows[j - 1]["bytes"] * r["bytes"]) + 1
            else:
                lo = 0 if a.table else int(r["bytes"] / math.sqrt(step)) + 1
            if j + 1 < len(rows):
                hi = math.isqrt(r["bytes"] * rows[j + 1]["bytes"])
            else:
                step = r["bytes"] / rows[j - 1]["bytes"] if j > 0 else 2.0
                hi = "inf" if a.table else int(r["bytes"] * math.sqrt(step))
            if merged and merged[-1]["choice"] == r["choice"]:
                merged[-1]["hi"] = hi
                merged[-1]["rows"].append(r)
            else:
                merged.append(dict(choice=r["choice"], lo=lo, hi=hi, rows=[r]))
        for m in merged:
            if m["choice"] == "model":
                continue
            algo, params = split_label(m["choice"])
            hi = toml_str("inf") if m["hi"] == "inf" else str(m["hi"])
            text += ["[[allreduce]]", f"ranks = [{p_lo}, {p_hi}]", f"bytes = [{m['lo']}, {hi}]",
                     f"algorithm = {toml_str(algo)}"]
            if params:
                text.append("params = { " + ", ".join(f"{k} = {toml_str(v)}"
                                                      for k, v in params.items()) + " }")
            rs = m["rows"]
            us = lambda xs: "[" + ", ".join(f"{x * 1e6:.2f}" for x in xs) + "]"
            text.append(
                f"evidence = {{ fitted_at = {P}, per_rank_doubles = [{', '.join(str(r['S']) for r in rs)}], "
                f"simulated_us = {us([r['sec'] for r in rs])}, "
                f"runner_up = [{', '.join(toml_str(r['second'][1]) for r in rs)}], "
                f"runner_up_us = {us([r['second'][0] for r in rs])}, "
                f"vendor_us = {us([r['vendor'] for r in rs])} }}")
            text.append("")
    with open(a.rules, "w") as f:
        f.write("\n".join(text))

    # ---- check ----
    report = [f"rules {a.rules} (fitted at P = {' '.join(map(str, fit))}) on the {plat}-like platform, "
              f"machine description {machine}", "",
              f"{'P':>5} {'S':>5} {'set':>7} {'oracle us':>10} {'oracle':<44} {'rules us':>9} "
              f"{'r/or':>5} {'model us':>9} {'m/or':>5}  with rules -> / model alone ->"]
    summary = {}
    for P in sorted(set(fit) | set(check)):
        t = sim_times(a.out, plat, P)
        for S in sorted({S for (_, S) in t}):
            kind = "fitted" if fitted(P, S) else "checked"
            cands = {spec: sec for (spec, s), sec in t.items() if s == S and spec != "vendor"}
            if not cands:
                continue
            oracle = min(cands, key=cands.get)
            with_rules = pick(a.info, P, S, a.rpn, machine, a.rules)
            alone = pick(a.info, P, S, a.rpn, machine, "none")
            tr, tm = t.get((with_rules, S), math.nan), t.get((alone, S), math.nan)
            rr, rm = tr / cands[oracle], tm / cands[oracle]
            summary.setdefault(kind, []).append((rr, rm, P, S))
            report.append(f"{P:5d} {S:5d} {kind:>7} {cands[oracle] * 1e6:10.1f} {oracle:<44} "
                          f"{tr * 1e6:9.1f} {rr:5.2f} {tm * 1e6:9.1f} {rm:5.2f}  {with_rules} / {alone}")
    report.append("")
    for kind in ("checked", "fitted"):
        xs = summary.get(kind, [])
        if not xs:
            continue
        for col, name in ((0, "with the rules"), (1, "model alone")):
            vals = [x[col] for x in xs if not math.isnan(x[col])]
            missing = len(xs) - len(vals)
            worst = max(xs, key=lambda x: -1 if math.isnan(x[col]) else x[col])
            report.append(
                f"{kind} cells, {name}: within 10% of the oracle in {sum(v <= 1.10 for v in vals)} of "
                f"{len(xs)}, worst {worst[col]:.2f} (P={worst[2]}, S={worst[3]}), geomean "
                f"{math.exp(statistics.fmean(math.log(v) for v in vals)):.3f}"
                + (f"; {missing} pick(s) not simulated" if missing else ""))
    print("\n".join(report))
    print(f"\nwrote {a.rules}")


if __name__ == "__main__":
    main()
