#!/usr/bin/env bash
# One simulated collbench alltoall run (from the repository root, after scripts/build-smpi.sh):
#   results/2026-12-04-simulation-alltoall-ompi/run.sh PLATFORM P ALGOS SIZES OUT.csv [PRECISION]
# SELECTOR: SMPI's collective selector, whose alltoall is `vendor` (mpich, the default, or ompi).
# PRECISION: SimGrid's maxmin/precision (its default, 1e-5, when not given). collbench's sizes
# are totals per rank: P blocks per destination.
set -euo pipefail
p=$1 P=$2 algos=$3 sizes=$4 out=$5 prec=${6:-}
hf="$(mktemp)"; trap 'rm -f "${hf}"' EXIT
scripts/lib/sim_hostfile.sh "inputs/platforms/${p}.xml" "${P}" >"${hf}"
extra=()
[[ -n "${prec}" ]] && extra+=("--cfg=maxmin/precision:${prec}")
PCOLL_MACHINE="inputs/machines/${p}.toml" PCOLL_RULES=none PCOLL_SIM_SHARED_BYTES=1m \
PCOLL_FALLBACK=error OMP_NUM_THREADS=1 OMP_PROC_BIND=false \
smpirun -np "${P}" -platform "inputs/platforms/${p}.xml" -hostfile "${hf}" \
    --cfg=smpi/simulate-computation:no --cfg=smpi/lat-factor:0:1 --cfg=smpi/bw-factor:0:1 \
    --cfg=smpi/coll-selector:"${SELECTOR:-mpich}" --cfg=smpi/privatization:1 "${extra[@]}" \
    --log=root.thres:warning --cfg=smpi/shared-malloc-blocksize:67108864 \
    build-smpi/apps/collbench/collbench --coll alltoall --algos "${algos}" --sizes "${sizes}" \
    --trials 1 --warmup 0 --no-overhead -q --csv "${out}"
