#!/usr/bin/env bash
# Measures a machine description for pcoll's cost model (PCOLL_MACHINE=FILE) and writes it as
# TOML with an [origin]: per level (intra-node, inter-node) latency, per-message overhead and
# per-flow bandwidth; the bandwidth of a node's link shared by all its ranks (node 0 to all
# others at once) and node to node; groups of 2, 4, ... nodes whose links are narrower or
# farther (the [[tier]] tables), or with --torus DIMS the torus's link bandwidth and per-hop
# latency ([torus]); the local reduction rate. The file is checked by loading it.
#   scripts/pcoll-calibrate.sh --out FILE [--ranks P] [--build DIR] [--launcher "CMD ARGS"]
#       [--torus 2,3,2,...]
#   scripts/pcoll-calibrate.sh --smpi PLATFORM.xml --out FILE [--ranks P]
# Natively it runs collprobe --calibrate under `mpirun -np P` (default P: the cores here), or
# under --launcher, e.g. --launcher "srun" inside a Slurm allocation of >= 2 nodes (a one-job
# template: scripts/slurm/calibrate.sbatch). One node measures [intra] only and keeps the
# built-in [inter]; the file says so. --smpi simulates PLATFORM.xml (SimGrid SMPI, the
# build-smpi/ tree; default P: 16 hosts' cores), as scripts/simulate.sh runs its cells; a
# platform whose cluster is a TORUS gives its topo_parameters as --torus.
# Takes well under a minute natively; in SMPI about a minute at P = 512.
set -euo pipefail
here="$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd -P)"
# shellcheck source=lib/common.sh
source "${here}/lib/common.sh"
root="$(pcoll_repo_root)"
out="" ranks="" build="" launcher="" platform="" torus=""
while [[ $# -gt 0 ]]; do
    case "$1" in
        --out) out="$2"; shift 2 ;;
        --ranks) ranks="$2"; shift 2 ;;
        --build) build="$2"; shift 2 ;;
        --launcher) launcher="$2"; shift 2 ;;
        --smpi) platform="$2"; shift 2 ;;
        --torus) torus="$2"; shift 2 ;;
        -h|--help) sed -n '2,17p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) pcoll_die "unknown argument '$1' (see --help)" ;;
    esac
done
[[ -n "${out}" ]] || pcoll_die "--out FILE is required (see --help)"
[[ -z "${ranks}" || "${ranks}" =~ ^[1-9][0-9]*$ ]] || pcoll_die "--ranks '${ranks}': a positive integer"
[[ -z "${torus}" || "${torus}" =~ ^[0-9]+(,[0-9]+)*$ ]] || pcoll_die "--torus '${torus}': comma-separated dimensions, e.g. 2,3,2"
mkdir -p -- "$(dirname -- "${out}")"
out="$(cd -- "$(dirname -- "${out}")" && pwd -P)/$(basename -- "${out}")"

if [[ -n "${platform}" ]]; then
    [[ -r "${platform}" ]] || pcoll_die "cannot read platform file '${platform}'"
    platform="$(cd -- "$(dirname -- "${platform}")" && pwd -P)/$(basename -- "${platform}")"
    command -v smpirun >/dev/null || pcoll_die "smpirun not found (Debian: libsimgrid-dev, simgrid)"
    build="${build:-${PCOLL_SMPI_BUILD_DIR:-${root}/build-smpi}}"
    build="$(mkdir -p -- "${build}" && cd -- "${build}" && pwd -P)"
    "${here}/build-smpi.sh" "${build}" collprobe >/dev/null  # incremental: never a stale binary
    if [[ -z "${ranks}" ]]; then  # 16 hosts of the first host's core count
        per="$(grep -o 'core="[0-9]*"' "${platform}" | head -n 1 | tr -dc '0-9')"
        ranks=$(( 16 * ${per:-1} ))
    fi
    if [[ -z "${torus}" ]] && grep -q 'topology="TORUS"' "${platform}"; then
        torus="$(grep -o 'topo_parameters="[0-9,]*"' "${platform}" | head -n 1 | tr -dc '0-9,')"
        pcoll_msg "the platform's cluster is a torus: --torus ${torus}"
    fi
    work="$(mktemp -d)"
    trap 'rm -rf -- "${work}"' EXIT
    "${here}/lib/sim_hostfile.sh" "${platform}" "${ranks}" >"${work}/hosts"
    pcoll_msg "calibrating in a simulation of $(basename -- "${platform}") at P = ${ranks}"
    (cd "${work}" && smpirun -np "${ranks}" -platform "${platform}" -hostfile "${work}/hosts" \
        --cfg=smpi/simulate-computation:no --cfg=smpi/lat-factor:0:1 --cfg=smpi/bw-factor:0:1 \
        --cfg=smpi/privatization:1 --cfg=smpi/coll-selector:mpich --log=root.thres:warning \
        --cfg=smpi/shared-malloc-blocksize:67108864 \
        "${build}/apps/collprobe/collprobe" --calibrate "${out}" \
        --origin-machine "$(basename -- "${platform}")" ${torus:+--torus "${torus}"})
    origin="scripts/pcoll-calibrate.sh --smpi inputs/platforms/$(basename -- "${platform}") --ranks ${ranks}"
else
    build="${build:-${PCOLL_BUILD_DIR:-${root}/build}}"
    build="$(mkdir -p -- "${build}" && cd -- "${build}" && pwd -P)"
    "${here}/build.sh" "${build}" collprobe >/dev/null
    if [[ -n "${launcher}" ]]; then
        read -r -a launch <<<"${launcher}"
        [[ -n "${ranks}" ]] && pcoll_msg "--ranks is the launcher's business with --launcher; ignored"
    else
        pcoll_mpirun_env
        ranks="${ranks:-$(nproc 2>/dev/null || echo 2)}"
        launch=(mpirun -np "${ranks}")
    fi
    pcoll_msg "calibrating with: ${launch[*]}"
    "${launch[@]}" "${build}/apps/collprobe/collprobe" --calibrate "${out}" ${torus:+--torus "${torus}"}
    origin="scripts/pcoll-calibrate.sh --ranks ${ranks}"
    [[ -n "${launcher}" ]] && origin="scripts/pcoll-calibrate.sh --launcher '${launcher}'"
    [[ -n "${torus}" ]] && origin+=" --torus ${torus}"
fi
# The [origin]'s command: this script's, not the collprobe line it ran (smpirun re-splits its
# arguments, so a value with spaces cannot reach collprobe as one).
toml="${origin//\\/\\\\}" && toml="${toml//\"/\\\"}"                          # TOML string
repl="${toml//\\/\\\\}" && repl="${repl//|/\\|}" && repl="${repl//&/\\&}"   # sed replacement
sed -i "s|^command = .*|command = \"${repl}\"|" "${out}"
pcoll_msg "wrote ${out} (use it: PCOLL_MACHINE=${out})"
