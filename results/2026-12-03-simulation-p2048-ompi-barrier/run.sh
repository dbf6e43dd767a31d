#!/bin/bash
# One simulation: pcoll's schedules and SMPI's ompi selector in one collbench run, every call after
# the ompi selector's barrier; otherwise the settings of scripts/simulate.sh's cells.
#   run.sh PLATFORM P S ALGOS OUT.csv    e.g. run.sh polaris 2048 1 vendor,rabenseifner p.csv
# SELECTOR=mpich runs the same after the mpich selector's barrier (vendor is then that selector).
root="$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")/../.." && pwd -P)"
platform=$1 P=$2 S=$3 algos=$4 out=$5
hf="$(mktemp)"; trap 'rm -f "${hf}"' EXIT
"${root}/scripts/lib/sim_hostfile.sh" "${root}/inputs/platforms/${platform}.xml" "${P}" >"${hf}"
env PCOLL_SIM_SHARED_BYTES=1m PCOLL_FALLBACK=error OMP_NUM_THREADS=1 OMP_PROC_BIND=false \
 smpirun -np "${P}" -platform "${root}/inputs/platforms/${platform}.xml" -hostfile "${hf}" \
  --cfg=smpi/simulate-computation:no --cfg=smpi/lat-factor:0:1 --cfg=smpi/bw-factor:0:1 \
  --cfg=smpi/coll-selector:${SELECTOR:-ompi} --cfg=smpi/privatization:1 --log=root.thres:warning \
  --cfg=smpi/shared-malloc-blocksize:67108864 \
  "${root}/build-smpi/apps/collbench/collbench" --algos "${algos}" --per-rank-segment "${S}" \
  --trials 1 --warmup 0 --no-overhead -q --csv "${out}"
