#!/bin/bash
# fugaku-like P=1024, S=8 doubles per rank: pcoll's rabenseifner and SMPI's ompi selector
# (rab_rdb at this size) in one simulation, both after the ompi selector's barrier.
#   run.sh ALGOS OUT.csv     e.g. run.sh vendor,rabenseifner,swing fugaku-P1024-S8-ompi.csv
root="$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")/../.." && pwd -P)"
hf="$(mktemp)"; trap 'rm -f "${hf}"' EXIT
"${root}/scripts/lib/sim_hostfile.sh" "${root}/inputs/platforms/fugaku.xml" 1024 >"${hf}"
env PCOLL_SIM_SHARED_BYTES=1m PCOLL_FALLBACK=error OMP_NUM_THREADS=1 OMP_PROC_BIND=false \
 smpirun -np 1024 -platform ${root}/inputs/platforms/fugaku.xml -hostfile "${hf}" \
  --cfg=smpi/simulate-computation:no --cfg=smpi/lat-factor:0:1 --cfg=smpi/bw-factor:0:1 \
  --cfg=smpi/coll-selector:ompi --cfg=smpi/privatization:1 --log=root.thres:warning \
  --cfg=smpi/shared-malloc-blocksize:67108864 \
  ${root}/build-smpi/apps/collbench/collbench --algos "$1" --per-rank-segment 8 --trials 1 --warmup 0 --no-overhead -q --csv "$2"
