#!/bin/bash
# The fft3d case study in SimGrid SMPI: every alltoall algorithm given, each with whole and
# overlapped transposes (--overlap), one launch per (platform, P, grid), local FFTs injected as
# computation from a native measurement (smpi/simulate-computation:no); each MPI_Test costs
# 1e-7 s of simulated time, not grown on repetition (as scripts/reproduce-cg.sh).
#   run.sh PLATFORM P GRID DECOMP ALGOS OVERLAPS FFT_SECONDS_PER_TRANSFORM OUT.csv [BUILD]
# e.g. run.sh polaris 512 256 pencil vendor,pairwise,node_aware,auto 1,4 0.00095 polaris-P512.csv
set -euo pipefail
here="$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd -P)"
root="$(cd -- "${here}/../.." && pwd -P)"
platform="$1" P="$2" grid="$3" decomp="$4" algos="$5" overlaps="$6" fft_s="$7" csv="$8"
build="${9:-${root}/build-smpi}"
hf="$(mktemp)"
trap 'rm -f "${hf}"' EXIT
"${root}/scripts/lib/sim_hostfile.sh" "${root}/inputs/platforms/${platform}.xml" "${P}" >"${hf}"
env PCOLL_SIM_SHARED_BYTES=1m PCOLL_FALLBACK=error OMP_NUM_THREADS=1 OMP_PROC_BIND=false \
    PCOLL_RULES=none PCOLL_MACHINE="${root}/inputs/machines/${platform}.toml" \
    smpirun -np "${P}" -platform "${root}/inputs/platforms/${platform}.xml" -hostfile "${hf}" \
    --cfg=smpi/simulate-computation:no --cfg=smpi/lat-factor:0:1 --cfg=smpi/bw-factor:0:1 \
    --cfg=smpi/coll-selector:mpich --cfg=smpi/privatization:1 --log=root.thres:warning \
    --cfg=smpi/test:1e-7 --cfg=smpi/grow-injected-times:no \
    "${build}/apps/fft3d/fft3d" --grid "${grid}" --decomp "${decomp}" --alltoall "${algos}" \
    --overlap "${overlaps}" --sim-fft-per-transform "${fft_s}" --planner estimate \
    --runs 1 --warmup 1 --iterations 2 --csv "${csv}"
