#!/usr/bin/env bash
# One simulated collbench alltoall run (from the repository root, after scripts/build-smpi.sh):
#   results/2026-12-04-simulation-alltoall-ompi/run.sh PLATFORM P ALGOS SIZES OUT.csv [PRECISION]
# The P = 512 folder's run.sh (no warm-up) with SimGrid's maxmin/precision set to PRECISION
# (its default, 1e-5, when not given). SELECTOR: SMPI's collective selector, whose alltoall is
# `vendor` (mpich, the default, or ompi). collbench's sizes are totals per rank: P blocks.
set -euo pipefail
[[ $# -ge 5 ]] || { sed -n '2,6p' "${BASH_SOURCE[0]}"; exit 2; }
extra=""
[[ -n "${6:-}" ]] && extra="--cfg=maxmin/precision:$6"
SMPI_EXTRA="${extra}" exec "$(dirname -- "${BASH_SOURCE[0]}")/../2026-12-04-simulation-alltoall-p512/run.sh" \
    "$1" "$2" "$3" "$4" "$5" 0
