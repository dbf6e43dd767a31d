#!/bin/bash
# Runs SMPI collbench simulations in parallel, one per line of JOBS, from the bundle that
# bundle.sh makes (the settings of scripts/simulate.sh's cells), each stopped after LIMIT_S:
#   drive.sh JOBS OUTDIR LIMIT_S
# JOBS lines: NAME PLATFORM P SELECTOR RULES collbench-args... (SELECTOR: SMPI's coll-selector,
# RULES: PCOLL_RULES, none = the model alone). Writes OUTDIR/NAME.csv and NAME.log (its exit
# status and wall time last). The hostfile is unrolled here so that smpirun needs no python3.
root="$(pwd -P)"; export SMPI_BUNDLE="${root}/.smpibundle"
jobs=$1 outd=$2 lim=$3; mkdir -p "$outd"
while read -r name platform P selector rules args; do
  [ -z "$name" ] && continue
  (
    hf="$(mktemp)"
    scripts/lib/sim_hostfile.sh "inputs/platforms/${platform}.xml" "${P}" | awk -F: '{for(i=0;i<$2;i++)print $1}' >"$hf"
    start=$(date +%s)
    cd "$(mktemp -d)"
    timeout "$lim" env PCOLL_MACHINE="${root}/inputs/machines/${platform}.toml" PCOLL_RULES=$rules \
      PCOLL_SIM_SHARED_BYTES=1m PCOLL_FALLBACK=error OMP_NUM_THREADS=1 OMP_PROC_BIND=false \
      "${SMPI_BUNDLE}/smpirun" -np "$P" -platform "${root}/inputs/platforms/${platform}.xml" -hostfile "$hf" \
      --cfg=smpi/simulate-computation:no --cfg=smpi/lat-factor:0:1 --cfg=smpi/bw-factor:0:1 \
      --cfg=smpi/coll-selector:${selector} --cfg=smpi/privatization:1 --log=root.thres:warning \
      --cfg=smpi/shared-malloc-blocksize:67108864 \
      "${SMPI_BUNDLE}/collbench" $args --trials 1 --no-overhead -q --csv "${root}/${outd}/${name}.csv" \
      >"${root}/${outd}/${name}.log" 2>&1
    echo "rc=$? wall=$(( $(date +%s) - start ))s" >>"${root}/${outd}/${name}.log"
  ) &
done <"$jobs"
wait
