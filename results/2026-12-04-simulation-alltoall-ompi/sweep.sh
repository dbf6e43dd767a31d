#!/usr/bin/env bash
# The all-to-all cells of this folder, one after the other (from the repository root):
#   results/2026-12-04-simulation-alltoall-ompi/sweep.sh [PLATFORMS]
# 1. SMPI's ompi selector at 8 and 256 B per destination, P = 256, 512, 1024 (its bruck there);
# 2. the mpich selector and node_aware with 1, 2, 4 (and 8 on the Aurora-like) leaders at
#    P = 1024, 8 B / 256 B / 4 KiB, and at P = 256, 256 B (the P = 256 folder has 8, 64, 512 B
#    and 4 KiB).
set -euo pipefail
here="results/2026-12-04-simulation-alltoall-ompi"
platforms="${1:-polaris fugaku aurora}"
for p in ${platforms}; do
  for P in 256 512 1024; do
    SELECTOR=ompi "${here}/run.sh" "${p}" "${P}" vendor "$((8 * P)),$((256 * P))" \
        "${here}/${p}-P${P}-ompi.csv" >"${here}/${p}-P${P}-ompi.log" 2>&1 || echo "${p} P=${P} ompi failed"
  done
done
for p in ${platforms}; do
  na="node_aware,node_aware:alltoall_leaders=2,node_aware:alltoall_leaders=4"
  [[ "${p}" == aurora ]] && na="${na},node_aware:alltoall_leaders=8"
  "${here}/run.sh" "${p}" 256 "vendor,${na}" 64k "${here}/${p}-P256-mpich-256B.csv" \
      >"${here}/${p}-P256-mpich-256B.log" 2>&1 || echo "${p} P=256 mpich failed"
  "${here}/run.sh" "${p}" 1024 "vendor,${na}" 8k,256k,4m "${here}/${p}-P1024-mpich.csv" \
      >"${here}/${p}-P1024-mpich.log" 2>&1 || echo "${p} P=1024 mpich failed"
done
