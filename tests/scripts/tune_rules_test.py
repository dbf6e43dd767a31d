#!/usr/bin/env python3
"""scripts/lib/tune_rules.py's choice per size on made-up samples (no MPI).

    tune_rules_test.py REPO

Per size a selection and a validation sample of 41 timings: at 8 B ring is 1.30x faster than the
vendor on both (a rule at any margin); at 1 KiB tree 1.03x faster with a tight spread (kept at
--min-speedup 1.0, dropped at 1.05, with the note saying why); at 64 KiB naive wins the
selection and is 0.90x on validation (vendor); at 1 MiB the vendor wins the selection.
"""
import os
import sys

repo = sys.argv[1]
sys.path.insert(0, os.path.join(repo, "scripts", "lib"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import numpy as np  # noqa: E402
from checks import Checks  # noqa: E402
from tune_rules import choose  # noqa: E402

rng = np.random.default_rng(7)
check = Checks()


def sample(median, spread=0.002):
    return list(median * (1.0 + spread * rng.standard_normal(41)))


sel, val = {}, {}
for d in (sel, val):
    d[("vendor", 8)], d[("ring", 8)] = sample(1.3e-6), sample(1.0e-6)
    d[("vendor", 1024)], d[("tree", 1024)] = sample(1.03e-5), sample(1.0e-5)
    d[("vendor", 1048576)], d[("naive", 1048576)] = sample(1.0e-3), sample(1.2e-3)
sel[("vendor", 65536)], sel[("naive", 65536)] = sample(1.0e-4), sample(0.9e-4)
val[("vendor", 65536)], val[("naive", 65536)] = sample(1.0e-4), sample(1.11e-4)

for margin in (1.0, 1.05):
    rows = {r["bytes"]: r for r in choose(2, sel, val, margin)}
    check(rows[8]["choice"] == "ring", f"margin {margin}: 8 B -> ring ({rows[8]['choice']})")
    want = "tree" if margin == 1.0 else "vendor"
    check(rows[1024]["choice"] == want, f"margin {margin}: 1 KiB -> {want} ({rows[1024]['choice']})")
    if margin > 1.0:
        check("not by the margin" in rows[1024]["note"], f"margin {margin}: 1 KiB note says why "
              f"({rows[1024]['note']})")
    check(rows[65536]["choice"] == "vendor" and "not confirmed" in rows[65536]["note"],
          f"margin {margin}: 64 KiB naive slower on validation -> vendor ({rows[65536]['note']})")
    check(rows[1048576]["choice"] == "vendor" and rows[1048576]["note"] == "vendor fastest on selection",
          f"margin {margin}: 1 MiB vendor fastest on selection ({rows[1048576]['note']})")
check.finish()
