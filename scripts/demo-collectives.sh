#!/usr/bin/env bash
# The collectives demo (scripts/demo.sh --collectives): installs what is missing, builds, compares the vendor
# MPI_Allreduce with every pcoll allreduce algorithm at 4 ranks (oversubscribed on small
# machines): prints collbench's table, writes the HDF5 log and the plots to the output folder.
# Every result is verified; a wrong one fails the run.
#   scripts/demo-collectives.sh [--ranks P] [--min 8] [--max 1M] [--sizes 8,8192,1048576] [--trials N]
#                   [--out demo-out]
set -euo pipefail
here="$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd -P)"
# shellcheck source=lib/common.sh
source "${here}/lib/common.sh"
root="$(pcoll_repo_root)"
build="${PCOLL_BUILD_DIR:-${root}/build}"
ranks=4 min=8 max=1M sizes="" trials=31 out="${root}/demo-out"
while [[ $# -gt 0 ]]; do
    case "$1" in
        --ranks) ranks="$2"; shift 2 ;;
        --min) min="$2"; shift 2 ;;
        --max) max="$2"; shift 2 ;;
        --sizes) sizes="$2"; shift 2 ;;
        --trials) trials="$2"; shift 2 ;;
        --out) out="$2"; shift 2 ;;
        -h|--help) sed -n '2,7p' "${BASH_SOURCE[0]}"; exit 0 ;;
        *) pcoll_die "unknown argument '$1' (see --help)" ;;
    esac
done

"${here}/build.sh" "${build}" collbench
pcoll_mpirun_env
export OMPI_MCA_mpi_yield_when_idle=1
mkdir -p "${out}"
log="${out}/collbench_np${ranks}.h5"
size_args=(--min "${min}" --max "${max}")
[[ -n "${sizes}" ]] && size_args=(--sizes "${sizes}")
pcoll_msg "allreduce: vendor vs every pcoll algorithm at ${ranks} ranks ($(nproc) cores)"
mpiexec -n "${ranks}" "${build}/apps/collbench/collbench" --coll allreduce "${size_args[@]}" \
    --trials "${trials}" --pingpong --log "${log}" --csv "${out}/collbench_np${ranks}.csv" |
    tee "${out}/collbench_np${ranks}.txt"
py="$(pcoll_python)" || pcoll_die "no python3 with h5py and matplotlib for the plots"
"${py}" "${here}/summarize.py" "${log}" -o "${out}/summary.md"
"${py}" "${here}/lib/plot_speedup.py" "${log}" -o "${out}/speedup.png"
"${py}" "${here}/lib/plot_phases.py" "${log}" -o "${out}/phases.png"
"${py}" "${here}/lib/plot_distribution.py" "${log}" -o "${out}/distribution.png"
pcoll_msg "log ${log} (layout: docs/trace-format.md); table ${out}/summary.md; plots ${out}/*.png"
