#!/bin/bash
# The holes of the extended Fig. 11 tables (the schedules added after the paper, on the
# Polaris- and Fugaku-like platforms, P = 128..2048) that no earlier run had simulated with
# today's plans: launches of the one-cell runner (the mpich selector's barrier before every
# timed call), two at a time, in the order below. From the repository root:
#   results/2026-12-05-simulation-fig11-new-schedules/run.sh [BUILD] [JOBS]
# BUILD: an SMPI tree (scripts/build-smpi.sh build-smpi collbench); JOBS: launches at once (2).
# A launch whose CSV exists is skipped, so a stopped run resumes. The lane variants run at the
# default batch (the paper's rule: b = 16 at P = 512, 32 at 1024 and 2048 on both platforms).
# SMPI's ompi selector's own cell at Fugaku-like P = 2048, S = 4096 had not been reached by the
# earlier P = 2048 run. recexch (the whole vector per step) at P = 2048 runs S = 1..512 and
# S = 4096 as separate launches: with the lanes beside it, one launch of all five sizes per
# platform ran 49 and 76 min without ending (at S = 4096 each rank sends 3 whole 64 MiB vectors
# in each of 6 steps); alone, S = 1..512 take 11-13 min.
set -uo pipefail
root="$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")/../.." && pwd -P)"
here="${root}/results/2026-12-05-simulation-fig11-new-schedules"
build=${1:-build-smpi} jobs=${2:-2}
if [[ ${3:-} == --one ]]; then  # one launch: PLATFORM P SEGMENTS ALGOS NAME [SELECTOR]
  out="${here}/$4-P$5-$8.csv"
  [[ -s "${out}" ]] && exit 0
  echo "$(date -u +%H:%M:%S) start $4 P=$5 S=$6 $7 (${9:-mpich})"
  if SELECTOR=${9:-mpich} "${root}/results/2026-12-03-simulation-recexch-rsag/run.sh" \
      "$4" "$5" "$6" "$7" "${out}.part" "${build}" >"${out}.log" 2>&1; then
    mv "${out}.part" "${out}"; rm -f "${out}.log"; echo "$(date -u +%H:%M:%S) done $4 P=$5 $8"
  else
    echo "$(date -u +%H:%M:%S) FAILED $4 P=$5 $8 (see ${out}.log)"
  fi
  exit 0
fi
S=1,8,64,512,4096 L=chiara_loglane:chiara_lane
cat <<LIST | xargs -P "${jobs}" -L 1 "$0" "${build}" "${jobs}" --one
polaris 128 ${S} recexch recexch
fugaku 128 ${S} recexch recexch
fugaku 512 ${S} recexch recexch
polaris 512 ${S} bine,recexch,${L}=bine,${L}=swing new
fugaku 1024 ${S} bine,recexch,recexch_rsag,${L}=doubling new
polaris 1024 ${S} bine,recexch new
fugaku 2048 ${S} swing,bine swing-bine
polaris 2048 ${S} ${L}=bine,${L}=doubling lanes
fugaku 2048 ${S} ${L}=doubling,${L}=halving lanes
fugaku 2048 512,4096 recexch_rsag:recexch_radix=16 rsag16
fugaku 2048 4096 vendor ompi-vendor ompi
polaris 2048 1,8,64,512 recexch recexch
fugaku 2048 1,8,64,512 recexch recexch
polaris 2048 4096 recexch recexch4096
fugaku 2048 4096 recexch recexch4096
LIST
