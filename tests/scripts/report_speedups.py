"""summarize.py and plot_kmeans.py state speedups with their bootstrap interval and verdict, on
synthetic inputs whose answer is known:
  - "fast":  every time exactly half of a vendor time -> 2.00x, faster, interval above 1;
  - "same":  the vendor's own times in another order (one distribution) -> 1.00x, within noise;
  - "slow":  every time twice a vendor time -> 0.50x, slower;
and the printed interval is the one scripts/lib/speedup.py gives on those samples (so the scripts
read the per-run samples, not a stored ratio). plot_kmeans.py --target-width also says when an
interval is wider than the target and how many runs would narrow it, and "too few runs" below 3.

    python3 report_speedups.py WORKDIR
"""
import csv
import os
import subprocess
import sys

import h5py
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPTS = os.path.join(HERE, "..", "..", "scripts")
LIB = os.path.join(SCRIPTS, "lib")  # helpers and report generators (scripts/README.md)
sys.path.insert(0, LIB)
from speedup import format_speedup, speedup_ci  # noqa: E402
sys.path.insert(0, HERE)
from checks import Checks  # noqa: E402

work = sys.argv[1]
os.makedirs(work, exist_ok=True)
rng = np.random.default_rng(2026)
expect = Checks()


def run(*args):
    p = subprocess.run([sys.executable, *args], capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit(f"FAIL: {' '.join(args)} exited {p.returncode}:\n{p.stdout}{p.stderr}")
    return p.stdout


def variants(vendor):
    return {"vendor": vendor, "fast": vendor / 2, "same": rng.permutation(vendor),
            "slow": vendor * 2}


# --- summarize.py on a synthetic collbench log ---------------------------------------------
log = os.path.join(work, "synthetic_collbench.h5")
P, trials = 4, 25
sizes = [8, 65536]
res_dtype = np.dtype([("algorithm", "S32"), ("bytes", "<u8"), ("per_rank_bytes", "<u8"),
                      ("count", "<u8"), ("n", "<u8")] +
                     [(k, "<f8") for k in ("median", "mad", "p10", "p90", "min", "max", "algbw",
                                           "busbw", "rounds", "messages")] +
                     [("max_bytes_sent", "<u8"), ("model_seconds", "<f8"), ("vs_vendor", "<f8"),
                      ("wrong", "<i8")])
smp_dtype = np.dtype([("algorithm", "S32"), ("bytes", "<u8"), ("trial", "<i4"),
                      ("seconds", "<f8")])
results, samples, truth = [], [], {}
for b in sizes:
    vendor = 1e-5 * (1 + b / 65536) * np.exp(rng.normal(0, 0.1, trials))
    for algo, t in variants(vendor).items():
        truth[(algo, b)] = (vendor, t)
        med = np.median(t)
        row = (algo, b, b // P, b // 8, trials, med, np.median(np.abs(t - med)),
               *np.quantile(t, [0.1, 0.9]), t.min(), t.max(), b / med, 1.5 * b / med,
               np.nan, np.nan, 0, np.nan, np.median(vendor) / med, 0)
        results.append(row)
        samples += [(algo, b, k, x) for k, x in enumerate(t)]
with h5py.File(log, "w") as f:
    g = f.create_group("collbench")
    for k, v in {"collective": "allreduce", "type": "double", "model_source": "synthetic"}.items():
        g.attrs[k] = np.bytes_(v)
    for k, v in {"trials": trials, "warmup": 1, "nranks": P}.items():
        g.attrs[k] = v
    g.attrs["model_alpha"], g.attrs["model_beta"] = 2e-6, 2e-10
    g.create_dataset("results", data=np.array(results, dtype=res_dtype))
    g.create_dataset("samples", data=np.array(samples, dtype=smp_dtype))

md = os.path.join(work, "synthetic_summary.md")
run(os.path.join(SCRIPTS, "summarize.py"), log, "-o", md)
with open(md) as f:
    table = [line for line in f if line.startswith(("| 8B ", "| 64KiB "))]
want = {"fast": ("2.00x [", "faster"), "same": ("1.00x [", "within noise"),
        "slow": ("0.50x [", "slower"), "vendor": ("(baseline)", "baseline")}
for line in table:
    cells = [c.strip() for c in line.strip().strip("|").split("|")]
    algo, b = cells[2], 8 if cells[0] == "8B" else 65536
    ratio_txt, verdict = want[algo]
    expect(cells[12].startswith(ratio_txt) and cells[13] == verdict,
           f"summarize {algo} at {cells[0]}: '{cells[12]}' '{cells[13]}'")
    if algo != "vendor":
        exact = format_speedup(speedup_ci(*truth[(algo, b)]), verdict=False)
        expect(cells[12] == exact, f"summarize {algo} at {cells[0]}: the interval is "
                                   f"speedup.py's on the samples ({exact})")
expect(len(table) == 8, f"summarize printed {len(table)} of the 8 rows")
run(os.path.join(LIB, "plot_speedup.py"), log, "-o", os.path.join(work, "synthetic_sp.png"))
expect(os.path.getsize(os.path.join(work, "synthetic_sp.png")) > 0,
       "plot_speedup marks within-noise cells on the same log")

# --- plot_kmeans.py on synthetic kmeans CSVs -----------------------------------------------
FIELDS = ("deck,ranks,threads,dim,clusters,points,exact_sums,algorithm,served_counts,"
          "served_sums,served_conv,run,warmup,iterations,converged,inertia,digest,total_s,"
          "compute_s,ar_counts_s,ar_sums_s,ar_conv_s,other_s,compute_max_s,allreduce_max_s,"
          "position").split(",")


def kmeans_csv(path, ranks, runs, sigma, algos):
    vendor = 0.5 * np.exp(rng.normal(0, sigma, runs))
    times = variants(vendor)
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=FIELDS)
        w.writeheader()
        for rep in range(-1, runs):  # one warm-up
            for pos in range(len(algos)):
                algo = algos[(pos + rep) % len(algos)]
                total = 0.6 if rep < 0 else times[algo][rep]
                ar = total / 4
                w.writerow({"deck": "synthetic", "ranks": ranks, "threads": 1, "dim": 8,
                            "clusters": 4, "points": 1000, "exact_sums": 1, "algorithm": algo,
                            "served_counts": algo, "served_sums": algo, "served_conv": algo,
                            "run": max(rep, 0) if rep >= 0 else 0, "warmup": int(rep < 0),
                            "iterations": 5, "converged": 0, "inertia": 1.0, "digest": "ab",
                            "total_s": total, "compute_s": total - ar, "ar_counts_s": ar / 4,
                            "ar_sums_s": ar / 2, "ar_conv_s": ar / 4, "other_s": 0.0,
                            "compute_max_s": total - ar, "allreduce_max_s": ar,
                            "position": pos})
    return times


csvs = [os.path.join(work, f"synthetic_kmeans_P{p}.csv") for p in (2, 4, 8)]
kmeans_csv(csvs[0], 2, 2, 0.05, ["vendor", "fast"])                          # too few runs
t4 = kmeans_csv(csvs[1], 4, 12, 0.05, ["vendor", "fast", "same", "slow"])   # clear answers
kmeans_csv(csvs[2], 8, 5, 0.5, ["vendor", "same"])                          # too noisy
out = run(os.path.join(LIB, "plot_kmeans.py"), *csvs, "--decks", work, "--target-width", "10",
          "-o", os.path.join(work, "synthetic_kmeans.png"))
print(out)
lines = out.splitlines()


def row(P, algo):
    return next((ln for ln in lines if ln.split()[:3] == [str(P), "synthetic", algo]), "")


for algo, (ratio_txt, verdict) in want.items():
    ln = row(4, algo)
    expect(ratio_txt in ln and (verdict in ln or algo == "vendor"),
           f"plot_kmeans P=4 {algo}: {ratio_txt} ... {verdict}")
    if algo != "vendor":
        exact = format_speedup(speedup_ci(t4["vendor"], t4[algo]))
        expect(exact in ln, f"plot_kmeans P=4 {algo}: speedup.py's interval ({exact})")
expect("too few runs" in row(2, "fast"), "plot_kmeans P=2: too few runs for an interval")
expect("within noise" in row(8, "same"), "plot_kmeans P=8 same: within noise")
expect(any("fast vs vendor, P=4" in ln and "within the +-10% target" in ln for ln in lines),
       "plot_kmeans --target-width: the clear P=4 speedup meets +-10%")
expect(any("same vs vendor, P=8" in ln and "WIDER than the +-10% target" in ln and
           "runs per algorithm (--runs, --max-runs) would" in ln for ln in lines),
       "plot_kmeans --target-width: the noisy P=8 interval is reported wider, with advice")
expect(any("ran first in its repetition: vendor 3 of 12, fast 3 of 12" in ln for ln in lines),
       "plot_kmeans reports how often each algorithm ran first")
expect(os.path.getsize(os.path.join(work, "synthetic_kmeans.png")) > 0, "the figure is written")
# --check: exit 0 when every interval is within the target, 1 when one is not (P=8 is noisy).
check = [sys.executable, os.path.join(LIB, "plot_kmeans.py"), "--target-width", "10", "--check"]
expect(subprocess.run(check + [csvs[1]], capture_output=True).returncode == 0,
       "plot_kmeans --check: 0 when every interval is within +-10%")
noisy = subprocess.run(check + csvs[1:], capture_output=True, text=True)
expect(noisy.returncode == 1 and noisy.stdout == "",
       "plot_kmeans --check: 1, silently, when one is wider")
expect.finish()
