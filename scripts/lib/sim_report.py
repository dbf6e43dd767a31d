#!/usr/bin/env python3
"""Tables and plots of a scripts/simulate.sh run (paper scale in SimGrid SMPI).

    sim_report.py OUT [--paper inputs/kmeans]

Reads OUT/cells/*.csv (one simulation each: collbench or kmeans CSV) and writes, into OUT:
  fig11-PLATFORM.{txt,csv,png}  speedup of each pcoll algorithm over SMPI's mpich and ompi
                                selectors, P x S (doubles per rank), the paper's Fig. 11
  fig6.{txt,png}                chiara time versus batch size b, the paper rule's b marked
  fig7.{txt,png}                chiara time versus k_AG and versus k_RS
  fig9.{txt,png}                semi-composed chiara vs naive composition (chiara_composed)
  kmeans.{txt,csv,png}          the k-means case study beside the paper's published numbers
Needs matplotlib (Debian: /usr/bin/python3 with python3-matplotlib).
"""
import argparse
import csv
import glob
import math
import os
import re
import sys

try:
    import tomllib
except ImportError:  # Python < 3.11
    tomllib = None

try:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
except ImportError:
    sys.exit("sim_report.py: matplotlib is missing; run with Debian's /usr/bin/python3 "
             "(python3-matplotlib)")

CELL = re.compile(r"^(?P<exp>fig11|fig6|fig7|kmeans)-(?P<rest>.*)\.csv$")
VARIANT = re.compile(r"^chiara:chiara_(batch|kag|krs)=(\d+)$")  # collbench NAME:param=value


def read_csv(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def bench_rows(path):
    """collbench CSV rows -> {(algorithm, S doubles per rank): median seconds}."""
    out = {}
    for r in read_csv(path):
        P = int(r["P"])
        S = int(r["count"]) // P  # allreduce: count = P * S
        out[(r["algorithm"], S)] = float(r["median_s"])
        if int(r["wrong"]) > 0:
            sys.exit(f"sim_report.py: {path}: {r['algorithm']} gave WRONG results")
    return out


def fmt_table(header, rows):
    widths = [max(len(str(x)) for x in col) for col in zip(header, *rows)]
    line = lambda r: "  ".join(str(x).rjust(w) for x, w in zip(r, widths))
    return "\n".join([line(header), line(["-" * w for w in widths])] + [line(r) for r in rows])


def save(fig, out, name):
    fig.tight_layout()
    fig.savefig(os.path.join(out, name + ".png"), dpi=110)
    plt.close(fig)


def batch_rule(P, b_max):
    """The paper's rule as pcoll implements it (chiara_batch_rule in chiara.cpp)."""
    root = math.sqrt(P)
    best = 1
    for d in range(1, P + 1):
        if P % d or d > b_max:
            continue
        if abs(d - root) < abs(best - root) or (abs(d - root) == abs(best - root) and d > best):
            best = d
    if best == 1 and P > 1:
        alt = next((d for d in range(2, min(P - 1, b_max) + 1) if P % d == 0), 0)
        best = alt or P
    return best


def fig11(out, cells):
    """cells: {(platform, P, S, selector): {(algo, S): t}} merged per (platform, P, selector)."""
    platforms = sorted({k[0] for k in cells})
    text = []
    for plat in platforms:
        Ps = sorted({k[1] for k in cells if k[0] == plat})
        Ss = sorted({k[2] for k in cells if k[0] == plat})
        sels = [s for s in ("mpich", "ompi") if any(k[0] == plat and k[3] == s for k in cells)]
        algos = []
        for k, v in cells.items():
            if k[0] == plat and k[3] == "mpich":
                for (a, _s) in v:
                    if a != "vendor" and a not in algos:
                        algos.append(a)
        order = ["chiara", "chiara_loglane", "chiara_composed", "rabenseifner", "auto", "ring"]
        algos.sort(key=lambda a: order.index(a) if a in order else len(order))

        def t(P, S, sel, algo):
            v = cells.get((plat, P, S, "mpich" if algo != "vendor" else sel))
            return v.get((algo, S)) if v else None

        rows_csv = []
        text.append(f"== Fig. 11, {plat}-like: simulated median time of one allreduce (us) ==")
        hdr = ["P", "S"] + [f"vendor-{s}" for s in sels] + algos
        rows = []
        for P in Ps:
            for S in Ss:
                r = [P, S]
                for s in sels:
                    x = t(P, S, s, "vendor")
                    r.append(f"{x * 1e6:.1f}" if x else "-")
                for a in algos:
                    x = t(P, S, "mpich", a)
                    r.append(f"{x * 1e6:.1f}" if x else "-")
                rows.append(r)
                for a in ["vendor"] + algos:
                    for s in sels if a == "vendor" else ["mpich"]:
                        x = t(P, S, s, a)
                        if x:
                            rows_csv.append({"platform": plat, "P": P, "S": S,
                                             "algorithm": a if a != "vendor" else f"vendor-{s}",
                                             "median_s": x,
                                             **{f"speedup_vs_{v}": (t(P, S, v, "vendor") / x
                                                                    if t(P, S, v, "vendor") else "")
                                                for v in sels}})
        text.append(fmt_table(hdr, rows))
        for s in sels:
            text.append(f"\n-- speedup over SMPI's {s} selector (vendor time / algorithm time; "
                        f">1 = faster than vendor) --")
            hdr = ["P", "S"] + algos
            rows = []
            for P in Ps:
                for S in Ss:
                    v = t(P, S, s, "vendor")
                    r = [P, S]
                    for a in algos:
                        x = t(P, S, "mpich", a)
                        r.append(f"{v / x:.2f}x" if (v and x) else "-")
                    rows.append(r)
            text.append(fmt_table(hdr, rows))
        text.append("")
        with open(os.path.join(out, f"fig11-{plat}.csv"), "w", newline="") as f:
            if rows_csv:
                w = csv.DictWriter(f, fieldnames=list(rows_csv[0].keys()))
                w.writeheader()
                w.writerows(rows_csv)
        # heatmaps: rows = algorithms, columns = selectors
        shown = [a for a in algos if a != "ring"]
        if not shown or not sels:
            continue
        fig, axes = plt.subplots(len(shown), len(sels), figsize=(4.2 * len(sels), 3.0 * len(shown)),
                                 squeeze=False)
        for i, a in enumerate(shown):
            for j, s in enumerate(sels):
                ax = axes[i][j]
                grid = [[(t(P, S, s, "vendor") / t(P, S, "mpich", a))
                         if (t(P, S, s, "vendor") and t(P, S, "mpich", a)) else float("nan")
                         for S in Ss] for P in Ps]
                im = ax.imshow(grid, cmap="RdBu", vmin=0, vmax=2, origin="lower", aspect="auto")
                for yi, row in enumerate(grid):
                    for xi, val in enumerate(row):
                        if not math.isnan(val):
                            ax.text(xi, yi, f"{val:.2f}", ha="center", va="center", fontsize=8)
                ax.set_xticks(range(len(Ss)), [str(S) for S in Ss])
                ax.set_yticks(range(len(Ps)), [str(P) for P in Ps])
                ax.set_xlabel("S (doubles per rank)")
                ax.set_ylabel("P")
                ax.set_title(f"{a} vs SMPI {s}", fontsize=10)
                fig.colorbar(im, ax=ax, fraction=0.046)
        fig.suptitle(f"Speedup over vendor, {plat}-like (SimGrid SMPI)")
        save(fig, out, f"fig11-{plat}")
    with open(os.path.join(out, "fig11.txt"), "w") as f:
        f.write("\n".join(text) + "\n")
    return "\n".join(text)


def sweep_fig(out, cells, name, title, param, rule=None):
    """cells: {(P, value): {(algo, S): t}} -> table + plot of chiara time versus value."""
    if not cells:
        return ""
    text = [f"== {title} =="]
    for P in sorted({k[0] for k in cells}):
        vals = sorted(v for (p, v) in cells if p == P)
        Ss = sorted({S for (p, v) in cells if p == P for (_a, S) in cells[(p, v)]})
        hdr = [param] + [f"S={S} (us)" for S in Ss]
        rows = []
        for v in vals:
            rows.append([f"{v}{' (rule)' if rule and rule(P) == v else ''}"] +
                        [f"{cells[(P, v)].get(('chiara', S), float('nan')) * 1e6:.1f}" for S in Ss])
        text.append(f"P = {P}" + (f", the paper's rule picks b = {rule(P)}" if rule else ""))
        text.append(fmt_table(hdr, rows))
        fig, ax = plt.subplots(figsize=(6, 3.6))
        for S in Ss:
            ys = [cells[(P, v)].get(("chiara", S), float("nan")) * 1e6 for v in vals]
            ax.plot(vals, ys, marker="o", label=f"S = {S} doubles")
        if rule:
            ax.axvline(rule(P), color="gray", ls="--", label=f"rule: b = {rule(P)}")
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_xlabel(param)
        ax.set_ylabel("simulated time (us)")
        ax.set_title(f"{title}, P = {P}", fontsize=10)
        ax.legend(fontsize=8)
        save(fig, out, f"{name}-P{P}")
    with open(os.path.join(out, f"{name}.txt"), "w") as f:
        f.write("\n".join(text) + "\n")
    return "\n".join(text)


def fig9(out, cells):
    rows = []
    for (plat, P, S, sel), v in sorted(cells.items()):
        if sel != "mpich" or ("chiara_composed", S) not in v or ("chiara", S) not in v:
            continue
        rows.append([plat, P, S, f"{v[('chiara', S)] * 1e6:.1f}",
                     f"{v[('chiara_composed', S)] * 1e6:.1f}",
                     f"{v[('chiara_composed', S)] / v[('chiara', S)]:.2f}x"])
    if not rows:
        return ""
    text = "== Fig. 9: semi-composition (chiara) vs naive composition (chiara_composed) ==\n" + \
        fmt_table(["platform", "P", "S", "chiara us", "composed us", "speedup"], rows)
    with open(os.path.join(out, "fig9.txt"), "w") as f:
        f.write(text + "\n")
    fig, ax = plt.subplots(figsize=(6, 3.6))
    for S in sorted({r[2] for r in rows}):
        pts = [(r[1], float(r[5][:-1])) for r in rows if r[2] == S]
        ax.plot([p for p, _ in pts], [y for _, y in pts], marker="o", label=f"S = {S}")
    ax.axhline(1.0, color="gray", lw=0.8)
    ax.set_xscale("log", base=2)
    ax.set_xlabel("P")
    ax.set_ylabel("chiara_composed / chiara time")
    ax.set_title("Fig. 9: speedup of semi-composition (SMPI)", fontsize=10)
    ax.legend(fontsize=8)
    save(fig, out, "fig9")
    return text


def kmeans(out, cells, paper_dir):
    """cells: {(deck, P, sel): csv rows}."""
    if not cells:
        return ""
    paper = {}
    if paper_dir and tomllib:
        for deck in {k[0] for k in cells}:
            p = os.path.join(paper_dir, f"{deck}.toml")
            if os.path.exists(p):
                with open(p, "rb") as f:
                    paper[deck] = tomllib.load(f).get("paper", {})
    text = ["== k-means (Fig. 12), simulated: per-iteration time on the critical path =="]
    text.append("(deterministic simulation: every iteration after the first costs the same; the "
                "30-iteration column is 30 x the per-iteration time, the decks' fixed iteration "
                "count; compute is the time measured natively here per iteration and rank)")
    hdr = ["deck", "P", "algorithm", "iter ms", "allreduce ms", "share", "30 it (s)",
           "vs mpich", "vs ompi", "digest", "paper (s)"]
    rows, rows_csv = [], []
    bars = []
    for deck, P in sorted({(k[0], k[1]) for k in cells}):
        per = {}
        digests = set()
        for sel in ("mpich", "ompi"):
            for r in cells.get((deck, P, sel), []):
                if r["warmup"] == "1":
                    continue
                name = r["algorithm"] if r["algorithm"] != "vendor" else f"vendor-{sel}"
                it = int(r["iterations"])
                per[name] = (float(r["total_s"]) / it, float(r["allreduce_max_s"]) / it,
                             float(r["compute_max_s"]) / it)
                digests.add(r["digest"])
        pp = paper.get(deck, {})
        pub = {}
        if P in pp.get("ranks", []):
            i = pp["ranks"].index(P)
            pub = {"vendor": pp["vendor_s"][i], "chiara": pp["chiara_s"][i], "speedup": pp["speedup"][i]}
        for name, (it, ar, comp) in per.items():
            vm, vo = per.get("vendor-mpich"), per.get("vendor-ompi")
            pub_s = ""
            if name.startswith("vendor") and pub:
                pub_s = f"vendor {pub['vendor']}"
            elif name == "chiara" and pub:
                pub_s = f"chiara {pub['chiara']} ({pub['speedup']}x)"
            rows.append([deck, P, name, f"{it * 1e3:.3f}", f"{ar * 1e3:.3f}",
                         f"{100 * ar / it:.0f}%", f"{30 * it:.3f}",
                         f"{vm[0] / it:.2f}x" if vm else "-", f"{vo[0] / it:.2f}x" if vo else "-",
                         "same" if len(digests) == 1 else "DIFFER", pub_s])
            rows_csv.append({"deck": deck, "P": P, "algorithm": name, "iteration_s": it,
                             "allreduce_s": ar, "compute_s": comp, "share": ar / it})
            bars.append((f"{deck}\nP={P}\n{name}", comp, ar, it))
    text.append(fmt_table(hdr, rows))
    text.append("digest: 'same' = every algorithm produced bit-identical centroids and labels")
    text.append("auto: PCOLL_ALLREDUCE=auto as built in (the default machine description and "
                "rules); DECK+machine blocks: the runs of simulate.sh --experiments auto, where "
                "auto-machine is auto on the platform's description (inputs/machines/) without "
                "rules, beside that run's own vendor and chiara")
    with open(os.path.join(out, "kmeans.txt"), "w") as f:
        f.write("\n".join(text) + "\n")
    with open(os.path.join(out, "kmeans.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows_csv[0].keys()))
        w.writeheader()
        w.writerows(rows_csv)
    fig, ax = plt.subplots(figsize=(max(6, 0.9 * len(bars)), 4))
    xs = range(len(bars))
    ax.bar(xs, [b[1] * 1e3 for b in bars], label="compute (injected)")
    ax.bar(xs, [b[2] * 1e3 for b in bars], bottom=[b[1] * 1e3 for b in bars], hatch="//",
           label="three allreduces")
    ax.set_xticks(list(xs), [b[0] for b in bars], fontsize=7)
    ax.set_ylabel("ms per iteration (critical path)")
    ax.set_title("k-means in simulation (Fig. 12 style)", fontsize=10)
    ax.legend(fontsize=8)
    save(fig, out, "kmeans")
    return "\n".join(text)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out")
    ap.add_argument("--paper", default="", help="folder of the k-means decks ([paper] numbers)")
    a = ap.parse_args()
    f11, f6, f7, km = {}, {}, {}, {}
    for path in sorted(glob.glob(os.path.join(a.out, "cells", "*.csv"))):
        name = os.path.basename(path)
        m = CELL.match(name)
        if not m:
            continue
        parts = m.group("rest").split("-")
        if m.group("exp") == "fig11":  # PLATFORM-P<P>-SEL-GROUP, every S inside
            plat, P, sel = parts[0], int(parts[1][1:]), parts[2]
            for (algo, S), t in bench_rows(path).items():
                f11.setdefault((plat, P, S, sel), {})[(algo, S)] = t
        elif m.group("exp") in ("fig6", "fig7"):  # PLATFORM-P<P>: chiara:chiara_<param>=v rows
            P = int(parts[1][1:])
            for (algo, S), t in bench_rows(path).items():
                v = VARIANT.match(algo)
                if not v:
                    continue
                key = {"batch": "b", "kag": "kag", "krs": "krs"}[v.group(1)]
                dest = f6 if key == "b" else f7.setdefault(key, {})
                dest.setdefault((P, int(v.group(2))), {})[("chiara", S)] = t
        else:  # kmeans-DECK-P<P>-SEL[-GROUP]
            rows, deck = read_csv(path), parts[0]
            if len(parts) > 3 and parts[3] == "auto":
                # simulate.sh --experiments auto: auto on the platform's machine description
                # without rules, with its own vendor and chiara runs (the compute time per
                # iteration is that run's calibration): a block of its own, not mixed with the
                # plain cell's rows and its auto (the built-in description and rules).
                deck += "+machine"
                for r in rows:
                    if r["algorithm"] == "auto":
                        r["algorithm"] = "auto-machine"
            km.setdefault((deck, int(parts[1][1:]), parts[2]), []).extend(rows)
    parts = [fig11(a.out, f11) if f11 else "",
             sweep_fig(a.out, f6, "fig6", "Fig. 6: chiara vs batch size b (polaris-like)", "b",
                       rule=lambda P: batch_rule(P, 32)),
             sweep_fig(a.out, f7.get("kag", {}), "fig7-kag", "Fig. 7: chiara vs k_AG", "k_AG"),
             sweep_fig(a.out, f7.get("krs", {}), "fig7-krs", "Fig. 7: chiara vs k_RS", "k_RS"),
             fig9(a.out, f11),
             kmeans(a.out, km, a.paper)]
    report = "\n\n".join(p for p in parts if p)
    with open(os.path.join(a.out, "report.txt"), "w") as f:
        f.write(report + "\n")
    print(report)


if __name__ == "__main__":
    main()
