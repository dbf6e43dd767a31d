#!/bin/bash
# The new schedules (Swing, Bine, the k-nomial radices, CHiArA's lane phases) at P = 2048 on the
# Polaris-like platform that the earlier P = 2048 runs had not simulated (Swing and the Bine
# tree): one launch of the one-cell runner (the mpich selector's barrier before every timed
# call), S = 1..4096 doubles per rank. From the repository root:
#   results/2026-12-05-simulation-p2048-new-schedules/run.sh [BUILD]   (an SMPI tree, build-smpi)
set -euo pipefail
root="$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")/../.." && pwd -P)"
here="${root}/results/2026-12-05-simulation-p2048-new-schedules"
run="${root}/results/2026-12-03-simulation-recexch-rsag/run.sh"
build=${1:-build-smpi}
"${run}" polaris 2048 1,8,64,512,4096 swing,bine "${here}/polaris-P2048-swing-bine.csv" "${build}"
