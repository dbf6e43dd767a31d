#!/usr/bin/env python3
"""Chooses selection rules from collbench logs and writes them as a pcoll rules file (TOML).

    scripts/lib/tune_rules.py --coll allreduce --out rules.toml [--min-speedup 1.0]
        [--origin key=value]... select_P2.h5 validate_P2.h5 select_P3.h5 ...

Called by scripts/pcoll-tune.sh (see its header for the method). Per P and size: the candidate
with the lowest median on the selection run wins; a non-vendor winner is kept only when the
validation run (a separate launch) shows it faster than the vendor with a bootstrap interval
above --min-speedup (scripts/lib/speedup.py), else the rule is `vendor`. Prints the evidence
table (markdown).
"""
import argparse
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import pcolllog  # noqa: E402
from pcolllog import human, np  # noqa: E402
from speedup import speedup_ci, format_speedup  # noqa: E402


def split_label(label):
    """'tree:tree_arity=4' -> ('tree', {'tree_arity': '4'})."""
    parts = label.split(":")
    params = {}
    for p in parts[1:]:
        k, _, v = p.partition("=")
        params[k] = v
    return parts[0], params


def toml_str(s):
    return '"' + str(s).replace("\\", "\\\\").replace('"', '\\"') + '"'


# collprobe counts an allgather's and an alltoall's size as OSU does (per rank, per
# destination); a rule's bytes are nccl-tests' total (rules.hpp), P times that.
PER_RANK_SIZES = ("allgather", "alltoall")


def probe_samples(path):
    """P, the collective and {(label, bytes): array of per-call seconds} of a collprobe --csv
    file: one sample per block of back-to-back calls (the block time / calls, max over ranks),
    bytes as a rule counts them. pmpi and auto are not candidates; blocking forms only. A file
    without a '# collective' line is an allreduce's (collprobe before --coll)."""
    P, coll, rows = None, "allreduce", []
    with open(path) as f:
        for line in f:
            if line.startswith("# ranks "):
                P = int(line.split()[2])
            if line.startswith("# collective "):
                coll = line.split()[2]
            if line.startswith("#") or line.startswith("size,"):
                continue
            _, b, entry, _, sec = line.strip().split(",")
            if entry in ("pmpi", "auto") or "/" in entry or entry.startswith("ompi:"):
                continue
            rows.append((entry, int(b), float(sec)))
    if P is None:
        sys.exit(f"tune_rules: {path} has no '# ranks' line (not a collprobe --csv file)")
    scale = P if coll in PER_RANK_SIZES else 1
    out = {}
    for entry, b, sec in rows:
        out.setdefault((entry, b * scale), []).append(sec)
    return P, coll, {k: np.array(v) for k, v in out.items()}


def load(paths, coll):
    """{P: {"select": samples, "validate": samples}} with samples {(label, bytes): array}."""
    runs = {}
    for p in paths:
        phase = "validate" if os.path.basename(p).startswith("validate") else "select"
        if p.endswith(".csv"):  # collprobe
            P, c, samples = probe_samples(p)
            if c != coll:
                sys.exit(f"tune_rules: {p} times {c}, not {coll}")
            runs.setdefault(P, {})[phase] = samples
            continue
        log = pcolllog.Log(p)
        if log.bench is None:
            sys.exit(f"tune_rules: {p} is not a collbench log")
        c = pcolllog.text(log.bench.attrs["collective"])
        if c != coll:
            sys.exit(f"tune_rules: {p} times {c}, not {coll}")
        runs.setdefault(log.nranks, {})[phase] = log.samples()
    for P, r in runs.items():
        if set(r) != {"select", "validate"}:
            sys.exit(f"tune_rules: P={P} needs a select_ and a validate_ log (have {sorted(r)})")
    return runs


def choose(P, sel, val, min_speedup=1.0):
    """One decision per measured size: dict rows with the evidence. A winner other than the
    vendor is kept where the validation's speedup interval lies above min_speedup."""
    sizes = sorted({b for (_, b) in sel})
    rows = []
    for b in sizes:
        meds = {a: float(np.median(s)) for (a, bb), s in sel.items() if bb == b and len(s)}
        if "vendor" not in meds:
            sys.exit(f"tune_rules: P={P}, {b} B: no vendor samples")
        best = min(meds, key=meds.get)
        row = {"bytes": b, "best_on_selection": best, "selection_median": meds[best],
               "vendor_selection_median": meds["vendor"], "n": len(sel[(best, b)])}
        vend_val = val.get(("vendor", b), [])
        if best == "vendor":
            row.update(choice="vendor", note="vendor fastest on selection")
            s = None
        else:
            s = speedup_ci(vend_val, val.get((best, b), []))
            keep = s.lo > min_speedup  # above min_speedup >= 1.0: "faster" too (NaN: never)
            if keep:
                note = "confirmed on validation"
            elif s.verdict == "faster":
                note = f"{best} faster on validation, not by the margin (interval not above {min_speedup:g})"
            else:
                note = f"{best} not confirmed on validation ({s.verdict})"
            row.update(choice=best if keep else "vendor", note=note)
        row["validation"] = s
        row["vendor_validation_median"] = float(np.median(vend_val)) if len(vend_val) else math.nan
        if row["choice"] != "vendor":
            row["validation_median"] = float(np.median(val[(row["choice"], b)]))
        else:
            row["validation_median"] = row["vendor_validation_median"]
        rows.append(row)
    return rows


def ranges(rows):
    """Merge adjacent sizes with the same choice; boundaries at geometric midpoints."""
    out = []
    for i, r in enumerate(rows):
        lo = 0 if i == 0 else int(math.sqrt(rows[i - 1]["bytes"] * r["bytes"])) + 1
        hi = "inf" if i + 1 == len(rows) else int(math.sqrt(r["bytes"] * rows[i + 1]["bytes"]))
        if out and out[-1]["choice"] == r["choice"]:
            out[-1]["hi"] = hi
            out[-1]["rows"].append(r)
        else:
            out.append({"choice": r["choice"], "lo": lo, "hi": hi, "rows": [r]})
    return out


def fmt_list(vals, f="{:.3f}"):
    return "[" + ", ".join(f.format(v) if not (isinstance(v, float) and math.isnan(v)) else
                           "nan" for v in vals) + "]"


def rule_text(coll, P, rng):
    algo, params = split_label(rng["choice"])
    rows = rng["rows"]
    hi = toml_str("inf") if rng["hi"] == "inf" else str(rng["hi"])
    lines = [f"[[{coll}]]", f"ranks = {P}", f"bytes = [{rng['lo']}, {hi}]",
             f"algorithm = {toml_str(algo)}"]
    if params:
        lines.append("params = { " + ", ".join(f"{k} = {toml_str(v)}" for k, v in params.items())
                     + " }")
    ev = [f"sizes = {fmt_list([r['bytes'] for r in rows], '{}')}",
          f"median_us = {fmt_list([r['validation_median'] * 1e6 for r in rows])}",
          f"vendor_median_us = {fmt_list([r['vendor_validation_median'] * 1e6 for r in rows])}"]
    if algo != "vendor":
        s = [r["validation"] for r in rows]
        ev += [f"speedup = {fmt_list([x.ratio for x in s])}",
               f"speedup_lo = {fmt_list([x.lo for x in s])}",
               f"speedup_hi = {fmt_list([x.hi for x in s])}"]
    ev.append(f"samples = {rows[0]['n']}")
    notes = sorted({r["note"] for r in rows})
    ev.append(f"note = {toml_str('; '.join(notes))}")
    lines.append("evidence = { " + ", ".join(ev) + " }")
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("logs", nargs="+")
    ap.add_argument("--coll", default="allreduce")
    ap.add_argument("--out", required=True)
    ap.add_argument("--origin", action="append", default=[], help="key=value for [origin]")
    ap.add_argument("--min-speedup", type=float, default=1.0,
                    help="keep a winner only where its validation interval lies above this")
    a = ap.parse_args()
    if not 1.0 <= a.min_speedup <= 10:
        sys.exit(f"tune_rules: --min-speedup {a.min_speedup}: a number from 1.0 to 10")
    runs = load(a.logs, a.coll)
    text = ["# pcoll selection rules, written by scripts/pcoll-tune.sh (scripts/lib/tune_rules.py).",
            "# Per P and message size (bytes as nccl-tests count them: the whole vector; all P",
            "# blocks for allgather and alltoall): the fastest candidate on a selection run,",
            "# kept only if a separate validation run shows it faster than the",
            f"# vendor with a 95% bootstrap interval above {a.min_speedup:g}; otherwise vendor. Evidence: the",
            "# validation medians (max over ranks per call), the speedup and its interval.",
            "[origin]"]
    for kv in a.origin:
        k, _, v = kv.partition("=")
        text.append(f"{k} = {toml_str(v)}")
    text.append("")
    report = [f"| P | size | best on selection | sel. median us | vendor sel. us | choice | "
              f"validation: speedup over vendor [95% CI] |", "|--:|--:|---|--:|--:|---|---|"]
    for P in sorted(runs):
        rows = choose(P, runs[P]["select"], runs[P]["validate"], a.min_speedup)
        for r in rows:
            v = r["validation"]
            report.append(f"| {P} | {human(r['bytes'])} | {r['best_on_selection']} | "
                          f"{r['selection_median'] * 1e6:.2f} | "
                          f"{r['vendor_selection_median'] * 1e6:.2f} | {r['choice']} | "
                          f"{format_speedup(v) if v else '-'} |")
        for rng in ranges(rows):
            text += [rule_text(a.coll, P, rng), ""]
    with open(a.out, "w") as f:
        f.write("\n".join(text))
    print("\n".join(report))
    print(f"\nwrote {a.out}")


if __name__ == "__main__":
    main()
