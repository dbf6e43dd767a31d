"""The C++ speedup statistic (apps/common/speedup.hpp, run through speedup_tool) and the Python
one (scripts/lib/speedup.py) agree on the same samples: the ratio of medians exactly (same
arithmetic), the bounds within bootstrap (Monte Carlo) error -- the two draw their resamples from
different generators -- and the verdict wherever 1.0 is not within that error of a bound.

The bootstrap error of each bound is measured, not assumed: the spread of the Python bound over
20 other seeds. A bound may differ by at most 4 such standard deviations (plus 1e-12).

    python3 speedup_agree.py SPEEDUP_TOOL
"""
import os
import re
import subprocess
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                "scripts", "lib"))
import speedup  # noqa: E402
from speedup import speedup_ci  # noqa: E402

tool = sys.argv[1]
rng = np.random.default_rng(42)


def lognormal(n, med, sigma):
    return med * np.exp(rng.normal(0.0, sigma, n))


CASES = {
    "clearly faster, 31 trials": (lognormal(31, 2e-3, 0.1), lognormal(31, 1e-3, 0.1)),
    "same distribution, 10 runs": (lognormal(10, 1e-3, 0.3), lognormal(10, 1e-3, 0.3)),
    "slower, 7 runs, heavy tail": (np.r_[lognormal(6, 1e-3, 0.1), 9e-3],
                                   np.r_[lognormal(6, 1.5e-3, 0.1), 1.6e-3]),
    "small effect, 5 runs": (lognormal(5, 1.1, 0.05), lognormal(5, 1.0, 0.05)),
    "even and odd counts": (lognormal(12, 1.0, 0.2), lognormal(9, 0.8, 0.2)),
    "too few runs": (np.array([1.0, 1.2]), np.array([0.5, 0.6, 0.7])),
}

failures = 0
for name, (base, cand) in CASES.items():
    text = " ".join(f"{x:.17g}" for x in base) + "\n" + " ".join(f"{x:.17g}" for x in cand) + "\n"
    out = subprocess.run([tool], input=text, capture_output=True, text=True, check=True).stdout
    ratio, lo, hi, verdict = out.split(maxsplit=3)
    ratio, lo, hi, verdict = float(ratio), float(lo), float(hi), verdict.strip()
    py = speedup_ci(base, cand)
    errs = []
    if not np.isclose(ratio, py.ratio, rtol=1e-14, atol=0):
        errs.append(f"ratio {ratio!r} != {py.ratio!r}")
    if np.isnan(py.lo):
        if not (np.isnan(lo) and np.isnan(hi) and verdict == py.verdict):
            errs.append(f"expected no interval ({py.verdict}), got {lo} {hi} {verdict}")
        tol_lo = tol_hi = 0.0
    else:
        others = [speedup_ci(base, cand, seed=s) for s in range(1, 21)]
        tol_lo = 4 * np.std([o.lo for o in others]) + 1e-12
        tol_hi = 4 * np.std([o.hi for o in others]) + 1e-12
        if abs(lo - py.lo) > tol_lo:
            errs.append(f"lo {lo:.6g} vs Python {py.lo:.6g} (allowed +-{tol_lo:.3g})")
        if abs(hi - py.hi) > tol_hi:
            errs.append(f"hi {hi:.6g} vs Python {py.hi:.6g} (allowed +-{tol_hi:.3g})")
        near_one = abs(py.lo - 1.0) <= tol_lo or abs(py.hi - 1.0) <= tol_hi
        if verdict != py.verdict and not near_one:
            errs.append(f"verdict {verdict!r} vs Python {py.verdict!r}")
    status = "FAIL" if errs else "ok"
    print(f"{status:4} {name}: C++ {ratio:.4f} [{lo:.4f}, {hi:.4f}] {verdict} | Python "
          f"{py.ratio:.4f} [{py.lo:.4f}, {py.hi:.4f}] {py.verdict}" +
          ("".join("\n     " + e for e in errs)))
    failures += bool(errs)

# The constants are declared in both languages: they must be the same.
hpp = open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "apps", "common",
                        "speedup.hpp")).read()
for cname, pyval in (("kSpeedupLevel", speedup.LEVEL), ("kSpeedupResamples", speedup.RESAMPLES),
                     ("kSpeedupSeed", speedup.SEED)):
    m = re.search(rf"{cname} = ([0-9.e+-]+);", hpp)
    if not m or float(m.group(1)) != float(pyval):
        print(f"FAIL: {cname} in speedup.hpp is {m and m.group(1)}, speedup.py has {pyval}")
        failures += 1

# The cases above must exercise every verdict, or the comparison proves less than it says.
seen = {speedup_ci(b, c).verdict for b, c in CASES.values()}
if seen != {"faster", "slower", "within noise", "too few runs"}:
    print(f"FAIL: the cases cover only the verdicts {sorted(seen)}")
    failures += 1
sys.exit(1 if failures else 0)
