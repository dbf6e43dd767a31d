#!/usr/bin/env bash
# The shared-memory collectives against Open MPI's default at P = 2 (not oversubscribed):
# collprobe --coll C, entries shm, auto (with the VM's rules) and vendor (PCOLL_<COLL> on the
# vendor path), PMPI_<COLL> as the reference, interleaved blocks; LAUNCHES launches per
# collective, one after the other (the launch-to-launch spread is part of the result).
#   results/2026-12-07-shm-collectives/run.sh [OUTDIR] [LAUNCHES] [COLLECTIVES]
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "${here}/../.." && pwd)"
out="${1:-${here}}"
launches="${2:-3}"
colls="${3:-allreduce bcast reduce allgather alltoall barrier}"
probe="${root}/build/apps/collprobe/collprobe"
[[ $(id -u) -eq 0 ]] && export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export PCOLL_RULES="${root}/inputs/rules/dev-vm.toml"
mkdir -p "${out}"
for c in ${colls}; do
  sizes=(--sizes 8,64,1k,8k,64k,1m,4m)
  [[ ${c} == barrier ]] && sizes=()
  for l in $(seq 1 "${launches}"); do
    mpirun -np 2 "${probe}" --coll "${c}" "${sizes[@]}" --blocks 20 --seed "${l}" --bw-reps 20 \
      --entries shm,auto,vendor -q --csv "${out}/${c}-${l}.csv" >"${out}/${c}-${l}.txt" 2>&1
  done
done
