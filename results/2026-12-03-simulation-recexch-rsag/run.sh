#!/bin/bash
# One simulation with the settings of scripts/simulate.sh's cells (the mpich selector's barrier
# before every timed call, as simulate.sh's pcoll cells), from the SMPI tree in BUILD.
#   run.sh PLATFORM P SEGMENTS ALGOS OUT.csv [BUILD]
# PLATFORM: a name in inputs/platforms (polaris) or the path of a platform file (.xml).
# SMPI_EXTRA: more smpirun options (e.g. --cfg=maxmin/precision:1e-9 where SimGrid's solver stops).
#   e.g. run.sh polaris 256 1,8,64,512,4096 rabenseifner,recexch_rsag p.csv build-smpi
root="$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")/../.." && pwd -P)"
platform=$1 P=$2 S=$3 algos=$4 out=$5 build=${6:-build-smpi}
case ${platform} in
  *.xml) xml=${platform} ;;
  *) xml=${root}/inputs/platforms/${platform}.xml ;;
esac
hf="$(mktemp)"; trap 'rm -f "${hf}"' EXIT
"${root}/scripts/lib/sim_hostfile.sh" "${xml}" "${P}" >"${hf}"
env PCOLL_SIM_SHARED_BYTES=1m PCOLL_FALLBACK=error OMP_NUM_THREADS=1 OMP_PROC_BIND=false \
 smpirun -np "${P}" -platform "${xml}" -hostfile "${hf}" \
  --cfg=smpi/simulate-computation:no --cfg=smpi/lat-factor:0:1 --cfg=smpi/bw-factor:0:1 \
  --cfg=smpi/coll-selector:${SELECTOR:-mpich} --cfg=smpi/privatization:1 --log=root.thres:warning \
  --cfg=smpi/shared-malloc-blocksize:67108864 ${SMPI_EXTRA:-} \
  "${root}/${build}/apps/collbench/collbench" --algos "${algos}" --per-rank-segment "${S}" \
  --trials 1 --warmup 0 --no-overhead -q --csv "${out}"
