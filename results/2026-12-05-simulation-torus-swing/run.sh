#!/bin/bash
# Swing against the earlier schedules on tori of one-rank nodes (the Swing paper's setting),
# simulated in SMPI by the one-cell runner of results/2026-12-03-simulation-recexch-rsag (the
# settings of scripts/simulate.sh's cells: the mpich selector's barrier before every timed
# call). From the repository root:
#   results/2026-12-05-simulation-torus-swing/run.sh [BUILD]   (an SMPI tree, build-smpi)
#   S=1,8,64,512 results/2026-12-05-simulation-torus-swing/run.sh   (the P = 1024 launch here)
# Two launches per (torus, P); a launch whose CSV exists is skipped.
set -uo pipefail
root="$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")/../.." && pwd -P)"
here="${root}/results/2026-12-05-simulation-torus-swing"
build=${1:-build-smpi}
algos=vendor,swing,rabenseifner,recursive_doubling,ring,recexch_rsag,bine
S=${S:-1,8,64,512,4096}  # S=1,8,64,512 for P = 1024 (the kernel stopped S = 4096 there: out of memory)
launch() {  # TORUS P DIMS NAME ALGOS
  local out="${here}/$1-P$2$4.csv"
  [[ -s "${out}" ]] && return 0
  echo "$(date -u +%H:%M:%S) start $1 P=$2 $4"
  "${root}/results/2026-12-03-simulation-recexch-rsag/run.sh" "${here}/$1.xml" "$2" "${S}" "$5" \
    "${out}.part" "${build}" >"${out}.log" 2>&1 \
    && mv "${out}.part" "${out}" && rm -f "${out}.log"
  echo "$(date -u +%H:%M:%S) $([[ -s ${out} ]] && echo done || echo FAILED) $1 P=$2 $4"
}
# TORUS P DIMS (Swing per dimension: the torus's own dimensions at that P): every schedule, then
# the multiport versions (the 1-D Swing's 2 parts, both ways round; per dimension, 2 DIMS parts).
cell() {
  launch "$1" "$2" "$3" "" "${algos},swing:swing_dims=$3"
  launch "$1" "$2" "$3" -multiport "swing:swing_multiport=1,swing:swing_dims=$3:swing_multiport=1"
}
cell torus-8x8x8 64 2     # one 8 x 8 plane
cell torus-16x16 256 2
cell torus-8x8x8 512 3
cell torus-32x32 1024 2
