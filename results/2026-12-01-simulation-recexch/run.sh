#!/usr/bin/env bash
# The recexch cells of this folder (from the repository root, after scripts/build-smpi.sh):
#   results/2026-12-01-simulation-recexch/run.sh
set -euo pipefail
out="$(cd "$(dirname "$0")" && pwd)"
for P in 64 256; do for p in polaris aurora fugaku; do
  hf="$(mktemp)"; scripts/lib/sim_hostfile.sh "inputs/platforms/${p}.xml" "${P}" >"${hf}"
  PCOLL_MACHINE="inputs/machines/${p}.toml" PCOLL_RULES=none PCOLL_SIM_SHARED_BYTES=1m \
  PCOLL_FALLBACK=error OMP_NUM_THREADS=1 OMP_PROC_BIND=false \
  smpirun -np "${P}" -platform "inputs/platforms/${p}.xml" -hostfile "${hf}" \
    --cfg=smpi/simulate-computation:no --cfg=smpi/lat-factor:0:1 --cfg=smpi/bw-factor:0:1 \
    --cfg=smpi/coll-selector:mpich --cfg=smpi/privatization:1 --log=root.thres:warning \
    --cfg=smpi/shared-malloc-blocksize:67108864 \
    build-smpi/apps/collbench/collbench \
    --algos recexch,recexch:recexch_radix=8,recexch:recexch_radix=16 \
    --per-rank-segment 1,8,64,512,4096 --trials 1 --warmup 0 --no-overhead -q \
    --csv "${out}/rx-${p}-P${P}.csv"
done; done
