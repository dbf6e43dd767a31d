#!/usr/bin/env bash
# The Aurora-like P = 1024 cells one entry and one size per launch (the launch of every entry
# and size together ended in a segmentation fault inside SimGrid), from the repository root:
#   results/2026-12-04-simulation-alltoall-ompi/split.sh
# Writes aurora-P1024-mpich-split-<entry>-<size>.csv; a launch that fails is reported and skipped.
set -uo pipefail
here="results/2026-12-04-simulation-alltoall-ompi"
for sz in 8k 256k 4m; do
  for a in vendor node_aware:alltoall_leaders=8 node_aware:alltoall_leaders=4 \
           node_aware:alltoall_leaders=2 node_aware; do
    tag="${a##*=}"; [[ "${a}" == *=* ]] && tag="leaders${tag}"
    "${here}/run.sh" aurora 1024 "${a}" "${sz}" "${here}/aurora-P1024-mpich-split-${tag}-${sz}.csv" \
        >/dev/null 2>&1 || echo "aurora P=1024 ${a} ${sz}: failed (exit $?)"
  done
done
