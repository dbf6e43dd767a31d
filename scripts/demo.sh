#!/usr/bin/env bash
# README's main command: installs what is missing, builds, and compares the vendor
# MPI_Allreduce with every pcoll allreduce algorithm at 4 ranks (oversubscribed on small
# machines), printing the table. Every result is verified; a wrong one fails the run.
#   scripts/demo.sh [--ranks P] [--sizes 8,8192,1048576] [--trials N]
set -euo pipefail
here="$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd -P)"
# shellcheck source=lib/common.sh
source "${here}/lib/common.sh"
root="$(pcoll_repo_root)"
build="${PCOLL_BUILD_DIR:-${root}/build}"
ranks=4 sizes="8,8192,1048576" trials=50
while [[ $# -gt 0 ]]; do
    case "$1" in
        --ranks) ranks="$2"; shift 2 ;;
        --sizes) sizes="$2"; shift 2 ;;
        --trials) trials="$2"; shift 2 ;;
        -h|--help) sed -n '2,6p' "${BASH_SOURCE[0]}"; exit 0 ;;
        *) pcoll_die "unknown argument '$1' (see --help)" ;;
    esac
done

"${here}/build.sh" "${build}"
pcoll_mpirun_env
export OMPI_MCA_mpi_yield_when_idle=1
pcoll_msg "allreduce: vendor vs pcoll algorithms at ${ranks} ranks ($(nproc) cores)"
mpiexec -n "${ranks}" "${build}/apps/collbench/collbench" --sizes "${sizes}" --trials "${trials}"
