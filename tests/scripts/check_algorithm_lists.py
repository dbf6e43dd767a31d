#!/usr/bin/env python3
"""Fails when a hand-written list of a collective's algorithms disagrees with the registry.

The registry (collectives/src/algorithms/list.def, through `pcoll-info --params-markdown`) is the
one list of algorithms; documentation should point to it (pcoll-info, docs/configuration.md)
rather than copy it. Where a text does write one out as `PCOLL_<COLLECTIVE>=a|b|c` (at least two
alternatives), the set of names must be exactly the collective's: auto, vendor and every
algorithm. Checked: README.md, CONTRIBUTING.md, docs/**/*.md and the public headers.

  check_algorithm_lists.py PCOLL_INFO REPO_ROOT
"""
import glob
import os
import re
import subprocess
import sys


def registry(pcoll_info):
    out = subprocess.run([pcoll_info, "--params-markdown"], check=True, capture_output=True,
                         text=True).stdout
    algos = {}
    for line in out.splitlines():
        m = re.match(r"\| `PCOLL_([A-Z_]+)` \| `auto` \| (auto\\\|vendor[^ ]*) \|", line)
        if m:
            algos[m.group(1)] = set(m.group(2).split("\\|"))
    if "ALLREDUCE" not in algos:
        sys.exit(f"FAIL: no algorithm rows in `{pcoll_info} --params-markdown`")
    return algos


def main():
    pcoll_info, root = sys.argv[1], sys.argv[2]
    algos = registry(pcoll_info)
    files = [os.path.join(root, f) for f in ("README.md", "CONTRIBUTING.md")]
    files += glob.glob(os.path.join(root, "docs", "**", "*.md"), recursive=True)
    files += glob.glob(os.path.join(root, "collectives", "include", "pcoll", "*.h*"))
    bad, seen = [], 0
    for path in files:
        if not os.path.exists(path):
            continue
        with open(path, encoding="utf-8") as f:
            text = f.read()
        # Lists may wrap over lines in C comments (" * "); join the continuation.
        flat = re.sub(r"\|\s*\n\s*\*?\s*", "|", text)
        for m in re.finditer(r"PCOLL_([A-Z_]+)=((?:[a-z_]+\|){2,}[a-z_]+)", flat):
            coll = m.group(1)
            if coll not in algos:
                continue  # not an algorithm selector (PCOLL_FALLBACK=error|warn|silent, ...)
            seen += 1
            names = set(m.group(2).split("|"))
            if names != algos[coll]:
                missing = sorted(algos[coll] - names)
                extra = sorted(names - algos[coll])
                bad.append(f"{os.path.relpath(path, root)}: PCOLL_{coll}={m.group(2)}: "
                           f"missing {missing}, not in the registry {extra}")
    if bad:
        print("FAIL: hand-kept algorithm lists disagree with the registry "
              "(point to pcoll-info / docs/configuration.md instead, or fix them):")
        for b in bad:
            print("  " + b)
        sys.exit(1)
    print(f"ok: {seen} algorithm lists checked against the registry in {len(files)} files")


if __name__ == "__main__":
    main()
