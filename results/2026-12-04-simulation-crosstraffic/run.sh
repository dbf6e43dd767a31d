#!/usr/bin/env bash
# The ring allreduce on the Fugaku-like torus with and without SimGrid's cross-traffic (the
# reverse-route load of TCP acknowledgements, network/crosstraffic, on by default in SMPI), from
# the repository root after scripts/build-smpi.sh build-smpi collbench:
#   results/2026-12-04-simulation-crosstraffic/run.sh
# Each cell is ../2026-12-03-simulation-recexch-rsag/run.sh (simulate.sh's settings: the mpich
# selector's barrier before every timed call) with SMPI_EXTRA empty (xt) or
# --cfg=network/crosstraffic:0 (noxt); the model's prediction is pcoll-info --plan's replay.
set -euo pipefail
here="results/2026-12-04-simulation-crosstraffic"
cell="results/2026-12-03-simulation-recexch-rsag/run.sh"
five="ring,recexch_rsag,recexch_rsag:recexch_radix=16,chiara_loglane:chiara_batch=16:chiara_lane=swing,rabenseifner,swing"
three="ring,chiara_loglane:chiara_batch=16:chiara_lane=bine,chiara_loglane:chiara_batch=16:chiara_lane=swing"
for xt in xt noxt; do
  extra=""; [[ "${xt}" == noxt ]] && extra="--cfg=network/crosstraffic:0"
  for P in 48 96 144 240 288; do
    SMPI_EXTRA="${extra}" "${cell}" fugaku "${P}" 4096 ring "${here}/fugaku-P${P}-${xt}.csv" >/dev/null
  done
  SMPI_EXTRA="${extra}" "${cell}" fugaku 192 64,4096 "${five}" "${here}/fugaku-P192-${xt}.csv" >/dev/null
  SMPI_EXTRA="${extra}" "${cell}" fugaku 512 4096 "${three}" "${here}/fugaku-P512-${xt}.csv" >/dev/null
  SMPI_EXTRA="${extra}" "${cell}" polaris 192 4096 ring "${here}/polaris-P192-${xt}.csv" >/dev/null
done
