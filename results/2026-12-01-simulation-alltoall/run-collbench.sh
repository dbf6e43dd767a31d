#!/usr/bin/env bash
# One simulated collbench alltoall run, as used for this folder (from the repository root, after
# scripts/build-smpi.sh):
#   results/2026-12-01-simulation-alltoall/run-collbench.sh PLATFORM P ALGOS SIZES OUT.csv [WARMUP]
# e.g. ... polaris 256 vendor,pairwise,bruck,node_aware 2k,16k,128k,1m polaris-P256-mpich.csv
# (sizes are collbench's totals: P blocks of 8, 64, 512 and 4096 B at P = 256); `auto` was run
# alone with WARMUP 1 (its first call of a shape decides and broadcasts the choice).
set -euo pipefail
p=$1 P=$2 algos=$3 sizes=$4 out=$5 warm=${6:-0}
hf="$(mktemp)"
scripts/lib/sim_hostfile.sh "inputs/platforms/${p}.xml" "${P}" >"${hf}"
PCOLL_MACHINE="inputs/machines/${p}.toml" PCOLL_RULES=none PCOLL_SIM_SHARED_BYTES=1m \
PCOLL_FALLBACK=error OMP_NUM_THREADS=1 OMP_PROC_BIND=false \
smpirun -np "${P}" -platform "inputs/platforms/${p}.xml" -hostfile "${hf}" \
    --cfg=smpi/simulate-computation:no --cfg=smpi/lat-factor:0:1 --cfg=smpi/bw-factor:0:1 \
    --cfg=smpi/coll-selector:mpich --cfg=smpi/privatization:1 --log=root.thres:warning \
    --cfg=smpi/shared-malloc-blocksize:67108864 \
    build-smpi/apps/collbench/collbench --coll alltoall --algos "${algos}" --sizes "${sizes}" \
    --trials 1 --warmup "${warm}" --no-overhead -q --csv "${out}"
