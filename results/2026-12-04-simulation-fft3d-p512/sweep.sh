#!/bin/bash
# The fft3d case study's transposes at P = 512 (pencil) in SimGrid SMPI, one launch per
# (platform, grid, leaders), with ../2026-12-03-simulation-fft3d-overlap/run.sh (whole transposes).
#   sweep.sh BUILD [PLATFORMS [GRIDS [ALGOS]]]
# BUILD: scripts/build-smpi.sh BUILD fft3d, from the repository root. GRIDS: of 256 128 64
# (default all); ALGOS: the transposes' algorithms of the first launch (default
# vendor,pairwise,node_aware,auto); the second launch is node_aware with 4 leaders per node.
# Local FFTs are injected as computation: 0.95 ms per transform and rank at 256^3, 0.103 ms at
# 128^3, 0.0111 ms at 64^3 (a native 256^3 transform on one rank of the development VM, 484 ms,
# scaled by points and log2 N over 512 ranks).
set -euo pipefail
here="$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd -P)"
build="$1"
platforms="${2:-polaris fugaku aurora}"
grids="${3:-256 128 64}"
algos="${4:-vendor,pairwise,node_aware,auto}"
declare -A fft_s=([256]=0.00095 [128]=0.000103 [64]=0.0000111)
run="${here}/../2026-12-03-simulation-fft3d-overlap/run.sh"
for p in ${platforms}; do
  for n in ${grids}; do
    t="${fft_s[${n}]}"
    "${run}" "${p}" 512 "${n}" pencil "${algos}" 1 "${t}" \
        "${here}/${p}-P512-${n}.csv" "${build}" >"${here}/${p}-P512-${n}.log" 2>&1
    PCOLL_ALLTOALL_LEADERS=4 "${run}" "${p}" 512 "${n}" pencil node_aware 1 "${t}" \
        "${here}/${p}-P512-${n}-leaders4.csv" "${build}" >"${here}/${p}-P512-${n}-leaders4.log" 2>&1
  done
done
