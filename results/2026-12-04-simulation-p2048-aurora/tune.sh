#!/bin/bash
# The fitting step of scripts/pcoll-tune.sh --smpi PLATFORM, run alone on the merged cells of
# every simulated P (64..2048, the Aurora-like P = 2048 ones of this folder included), twice per
# platform: the rules shipped as inputs/rules/PLATFORM.toml, fitted on every P (tune-PLATFORM.txt),
# and a held-out check, rules fitted at P = 64, 256, 1024 spread over the P between them, judged
# at 128, 512 and 2048 (heldout-PLATFORM.txt; those rules are not kept). From the repository root:
#   /usr/bin/python3 results/2026-12-04-simulation-recexch-mixed/merge_cells.py OUT
#   cp -r results/2026-12-04-simulation-recexch-mixed/auto-candidates OUT/
#   results/2026-12-04-simulation-p2048-aurora/tune.sh OUT [PLATFORMS]
set -euo pipefail
root="$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")/../.." && pwd -P)"
here="${root}/results/2026-12-04-simulation-p2048-aurora"
out=$1
rev="$(git -C "${root}" rev-parse --short HEAD)"
for p in ${2:-polaris fugaku aurora}; do
  rpn="$("${root}/scripts/lib/sim_hostfile.sh" "${root}/inputs/platforms/${p}.xml" 1024 | sed 's/.*://;q')"
  common=("${out}" "${p}" --rpn "${rpn}" --info "${root}/build/collectives/pcoll-info"
          --machine "${root}/inputs/machines/${p}.toml")
  /usr/bin/python3 "${root}/scripts/lib/sim_tune.py" "${common[@]}" \
    --fit "64 128 256 512 1024 2048" --check "" --out "${root}/inputs/rules/${p}.toml" \
    --origin "tool=pcoll-tune" --origin "date=$(date -u +%Y-%m-%dT%H:%MZ)" \
    --origin "machine=${p}.xml (SimGrid SMPI), ${rpn} ranks per host" \
    --origin "mpi=SMPI 3.32" --origin "pcoll=${rev}" \
    --origin "command=scripts/lib/sim_tune.py OUT ${p} --fit \"64 128 256 512 1024 2048\" --check \"\" (the step of scripts/pcoll-tune.sh --smpi ${p} that fits, run alone on the cells of results/2026-12-04-simulation-recexch-mixed/merge_cells.py; results/2026-12-04-simulation-p2048-aurora/tune.sh)" \
    | sed -e "s|${out}|OUT|g" -e "s|${root}/||g" >"${here}/tune-${p}.txt"
  /usr/bin/python3 "${root}/scripts/lib/sim_tune.py" "${common[@]}" \
    --fit "64 256 1024" --check "128 512 2048" --spread-ranks --out "${out}/heldout-${p}.toml" \
    | sed -e "s|${out}|OUT|g" -e "s|${root}/||g" >"${here}/heldout-${p}.txt"
done
