#!/usr/bin/env python3
"""The markdown table of a pcoll log: collbench's results when the log has them, else
per (collective, algorithm, bytes) call statistics from the trace.

collbench's speedup over the vendor is restated from the per-call samples of the log with its 95%
bootstrap interval and verdict (scripts/lib/speedup.py: "within noise" when the interval contains
1.0, "too few runs" below 3 trials).

    scripts/summarize.py LOG.h5 [-o table.md]
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "lib"))
import pcolllog  # noqa: E402
from pcolllog import human, np  # noqa: E402
from speedup import format_speedup, speedup_ci, RESAMPLES  # noqa: E402


def bench_table(log):
    rows = log.results()
    P = log.nranks
    b = log.bench.attrs
    lines = [f"collbench {pcolllog.text(b['collective'])}, P={P}, "
             f"{pcolllog.text(b['type'])}, {int(b['trials'])} trials after "
             f"{int(b['warmup'])} warm-ups; time = max over ranks per call; model alpha="
             f"{b['model_alpha']:.3g} s, beta={b['model_beta']:.3g} s/B "
             f"({pcolllog.text(b['model_source'])})", ""]
    if "overhead" in log.bench:
        o = log.bench["overhead"].attrs
        d, p = o["direct_median"], o["pcoll_vendor_median"]
        lines += [f"Tracing-off overhead at 8 B: PMPI direct {d * 1e6:.2f} us, PCOLL vendor path "
                  f"{p * 1e6:.2f} us per call ({(p - d) * 1e6:+.2f} us, "
                  f"{100 * (p - d) / d:+.1f}%)", ""]
    lines += ["| size | per rank | algorithm | median us | MAD us | p10 us | p90 us | min us | "
              "max us | busBw GB/s | rounds | model us | vs vendor [95% interval] | verdict | "
              "#wrong |",
              "|---|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|---|--:|"]
    samples = log.samples()
    for r in rows:
        model = "-" if np.isnan(r["model_seconds"]) else f"{r['model_seconds'] * 1e6:.2f}"
        rounds = "-" if np.isnan(r["rounds"]) else f"{r['rounds']:.0f}"
        vs, verdict = vs_vendor(r, samples)
        lines.append(
            f"| {human(r['bytes'])} | {human(r['per_rank_bytes'])} | {r['algorithm']} | "
            f"{r['median'] * 1e6:.2f} | {r['mad'] * 1e6:.2f} | {r['p10'] * 1e6:.2f} | "
            f"{r['p90'] * 1e6:.2f} | {r['min'] * 1e6:.2f} | {r['max'] * 1e6:.2f} | "
            f"{r['busbw'] / 1e9:.3f} | {rounds} | {model} | {vs} | {verdict} | "
            f"{int(r['wrong'])} |")
    lines += ["", f"vs vendor = vendor median / this median (> 1: faster); 95% interval: "
              f"percentile bootstrap over the trials ({RESAMPLES} resamples, fixed seed); "
              f"'within noise' when it contains 1.0."]
    return lines


def vs_vendor(row, samples):
    """(speedup text, verdict) of one results row against the vendor's samples of its size."""
    if row["algorithm"] == "vendor":
        return "(baseline)", "baseline"
    base = samples.get(("vendor", int(row["bytes"])))
    mine = samples.get((row["algorithm"], int(row["bytes"])))
    if base is None or mine is None:
        return "-", "-"  # no vendor in this run
    s = speedup_ci(base, mine)
    return format_speedup(s, verdict=False), s.verdict


def trace_table(log):
    lines = [f"pcoll trace, P={log.nranks}, {log.run.get('calls_total', '?')} calls "
             f"({log.run.get('note', '')})", "",
             "| collective | algorithm | bytes | calls | median us (max over ranks) | "
             "phases (median us) |",
             "|---|---|---|--:|--:|---|"]
    groups = log.call_groups()
    for (coll, algo, b), (secs, ph) in sorted(groups.items(),
                                              key=lambda kv: (kv[0][0], kv[0][2], kv[0][1])):
        txt = ", ".join(f"{k} {v * 1e6:.1f}" for k, v in ph.items()) or "-"
        lines.append(f"| {coll} | {algo} | {human(b)} | {len(secs)} | "
                     f"{np.median(secs) * 1e6:.2f} | {txt} |")
    return lines


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("log")
    ap.add_argument("-o", "--out", help="write the markdown here (default: stdout)")
    a = ap.parse_args()
    log = pcolllog.Log(a.log)
    lines = bench_table(log) if log.bench is not None else trace_table(log)
    text = "\n".join(lines) + "\n"
    if a.out:
        with open(a.out, "w") as f:
            f.write(text)
    else:
        sys.stdout.write(text)


if __name__ == "__main__":
    main()
