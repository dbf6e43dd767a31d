#!/bin/bash
# The Aurora-like P = 2048 cells of the `auto` report: the model's 3 fastest schedules per S
# (auto-candidates/aurora-P2048.tsv of 2026-12-04-simulation-recexch-mixed), each simulated at
# the S where it is among them, and SMPI's mpich and ompi selectors at every S; five launches of
# the one-cell runner (the mpich selector's barrier before every timed call, as simulate.sh's
# pcoll cells), two at a time on the 2-core VM. From the repository root:
#   results/2026-12-04-simulation-p2048-aurora/run.sh [BUILD]     (BUILD: an SMPI tree, build-smpi)
set -euo pipefail
root="$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")/../.." && pwd -P)"
here="${root}/results/2026-12-04-simulation-p2048-aurora"
run="${root}/results/2026-12-03-simulation-recexch-rsag/run.sh"
build=${1:-build-smpi}
cells="${here}/cells"
"${run}" aurora 2048 1,8,64,512 \
  recexch_rsag:recexch_radix=8,recexch_rsag,recexch_rsag:recexch_radix=16 \
  "${cells}/auto-aurora-P2048-rsag.csv" "${build}" &
"${run}" aurora 2048 512,4096 swing,chiara_loglane:chiara_batch=8:chiara_lane=swing,vendor \
  "${cells}/auto-aurora-P2048-large.csv" "${build}" &
wait
"${run}" aurora 2048 1,8,64 vendor,swing "${cells}/auto-aurora-P2048-small.csv" "${build}" &
SELECTOR=ompi "${run}" aurora 2048 1,8,64,512,4096 vendor \
  "${cells}/fig11-aurora-P2048-ompi-vendor.csv" "${build}" &
wait
"${run}" aurora 2048 4096 ring "${cells}/auto-aurora-P2048-ring.csv" "${build}"
