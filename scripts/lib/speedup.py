"""Speedups stated honestly: the one way every pcoll report (collbench summaries, the case-study
reproduction scripts, the demo) turns two sets of timings into a ratio.

    s = speedup_ci(vendor_times, algo_times)     # > 1: the candidate is faster
    print(format_speedup(s))                     # "1.23x [1.10, 1.35]" or
                                                 # "1.02x [0.95, 1.10] within noise"

ratio = median(baseline) / median(candidate). The interval is a percentile bootstrap over runs
(each set resampled with replacement, independently; fixed seed, so a report is reproducible):
the spread of the ratio of medians that the runs themselves show. The verdict is "faster" when the
whole interval is above 1.0, "slower" when it is below, and "within noise" when it contains 1.0.
With fewer than 3 samples on either side no interval is claimed ("too few runs").

Needs numpy only.
"""
from dataclasses import dataclass
import math

import numpy as np

LEVEL = 0.95
RESAMPLES = 4000
SEED = 20261130


@dataclass
class Speedup:
    ratio: float        # median(baseline) / median(candidate)
    lo: float           # bootstrap interval; nan with too few runs
    hi: float
    verdict: str        # "faster" | "slower" | "within noise" | "too few runs"
    n_base: int
    n_cand: int
    level: float = LEVEL

    @property
    def width(self):
        """Relative half-width of the interval (0.05 = +-5%), nan without one."""
        if math.isnan(self.lo) or self.ratio <= 0:
            return float("nan")
        return (self.hi - self.lo) / (2 * self.ratio)


def _clean(x):
    a = np.asarray(list(x), dtype=float)
    return a[np.isfinite(a) & (a > 0)]


def speedup_ci(baseline, candidate, level=LEVEL, resamples=RESAMPLES, seed=SEED):
    """Speedup of `candidate` over `baseline` (both: per-run times, any iterable of seconds)."""
    b, c = _clean(baseline), _clean(candidate)
    if len(b) == 0 or len(c) == 0:
        return Speedup(float("nan"), float("nan"), float("nan"), "too few runs", len(b), len(c),
                       level)
    ratio = float(np.median(b) / np.median(c))
    if len(b) < 3 or len(c) < 3:
        return Speedup(ratio, float("nan"), float("nan"), "too few runs", len(b), len(c), level)
    rng = np.random.default_rng(seed)
    mb = np.median(rng.choice(b, size=(resamples, len(b)), replace=True), axis=1)
    mc = np.median(rng.choice(c, size=(resamples, len(c)), replace=True), axis=1)
    r = mb / mc
    alpha = (1.0 - level) / 2
    lo, hi = (float(v) for v in np.quantile(r, [alpha, 1.0 - alpha]))
    if lo > 1.0:
        verdict = "faster"
    elif hi < 1.0:
        verdict = "slower"
    else:
        verdict = "within noise"
    return Speedup(ratio, lo, hi, verdict, len(b), len(c), level)


def format_speedup(s, verdict=True):
    """"1.23x [1.10, 1.35]", with " within noise" / " too few runs" appended where it applies
    (the words "faster"/"slower" are left to the table's column header)."""
    if math.isnan(s.ratio):
        return "-"
    if math.isnan(s.lo):
        return f"{s.ratio:.2f}x (too few runs for an interval)"
    txt = f"{s.ratio:.2f}x [{s.lo:.2f}, {s.hi:.2f}]"
    if verdict and s.verdict == "within noise":
        txt += " within noise"
    return txt


def spread(samples):
    """(median, MAD, p10, p90, relative MAD) of per-run times; nan-filled when empty."""
    a = _clean(samples)
    if len(a) == 0:
        return (float("nan"),) * 5
    med = float(np.median(a))
    mad = float(np.median(np.abs(a - med)))
    p10, p90 = (float(v) for v in np.quantile(a, [0.1, 0.9]))
    return med, mad, p10, p90, (mad / med if med > 0 else float("nan"))


def format_time(seconds, unit="ms"):
    scale = {"s": 1.0, "ms": 1e3, "us": 1e6}[unit]
    return f"{seconds * scale:.3f}"


def _selftest():
    rng = np.random.default_rng(1)
    same = speedup_ci(rng.normal(1.0, 0.05, 20), rng.normal(1.0, 0.05, 20))
    assert same.verdict == "within noise", same
    fast = speedup_ci(rng.normal(2.0, 0.05, 20), rng.normal(1.0, 0.05, 20))
    assert fast.verdict == "faster" and 1.8 < fast.ratio < 2.2, fast
    slow = speedup_ci(rng.normal(1.0, 0.05, 20), rng.normal(2.0, 0.05, 20))
    assert slow.verdict == "slower", slow
    few = speedup_ci([1.0, 1.1], [0.5, 0.6])
    assert few.verdict == "too few runs" and math.isnan(few.lo), few
    assert "within noise" in format_speedup(same)
    print("speedup.py selftest: ok", format_speedup(same), "|", format_speedup(fast))


if __name__ == "__main__":
    _selftest()
