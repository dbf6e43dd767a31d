#!/usr/bin/env bash
# One simulated collbench alltoall run (from the repository root, after scripts/build-smpi.sh):
#   results/2026-12-04-simulation-alltoall-p512/run.sh PLATFORM P ALGOS SIZES OUT.csv [WARMUP]
# SELECTOR: SMPI's collective selector, whose alltoall is `vendor` (mpich, the default, or ompi).
# e.g. ... fugaku 512 vendor,node_aware,node_aware:alltoall_leaders=4 4k,128k,2m f.csv
# (sizes are collbench's totals: P blocks of 8, 256 and 4096 B at P = 512); `auto` runs alone
# with WARMUP 1 (its first call of a shape decides and broadcasts the choice).
# SMPI_EXTRA: more smpirun options (e.g. --cfg=maxmin/precision:1e-4).
set -euo pipefail
p=$1 P=$2 algos=$3 sizes=$4 out=$5 warm=${6:-0}
hf="$(mktemp)"; trap 'rm -f "${hf}"' EXIT
scripts/lib/sim_hostfile.sh "inputs/platforms/${p}.xml" "${P}" >"${hf}"
PCOLL_MACHINE="inputs/machines/${p}.toml" PCOLL_RULES=none PCOLL_SIM_SHARED_BYTES=1m \
PCOLL_FALLBACK=error OMP_NUM_THREADS=1 OMP_PROC_BIND=false \
smpirun -np "${P}" -platform "inputs/platforms/${p}.xml" -hostfile "${hf}" \
    --cfg=smpi/simulate-computation:no --cfg=smpi/lat-factor:0:1 --cfg=smpi/bw-factor:0:1 \
    --cfg=smpi/coll-selector:"${SELECTOR:-mpich}" --cfg=smpi/privatization:1 \
    --log=root.thres:warning --cfg=smpi/shared-malloc-blocksize:67108864 ${SMPI_EXTRA:-} \
    build-smpi/apps/collbench/collbench --coll alltoall --algos "${algos}" --sizes "${sizes}" \
    --trials 1 --warmup "${warm}" --no-overhead -q --csv "${out}"
