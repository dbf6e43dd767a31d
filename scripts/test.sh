#!/usr/bin/env bash
# README's test command: installs what is missing, builds, and runs every test with ctest
# (unit tests without MPI, MPI tests at 1..9, 12 and 16 ranks, oversubscribed, and the SMPI
# simulation tests at 16 simulated ranks).
#   scripts/test.sh [ctest arguments...]     e.g. scripts/test.sh -R unit
set -euo pipefail
here="$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd -P)"
# shellcheck source=lib/common.sh
source "${here}/lib/common.sh"
root="$(pcoll_repo_root)"
build="${PCOLL_BUILD_DIR:-${root}/build}"

# The SMPI build first: ctest's smpi.* cases simulate it (tests/smpi).
export PCOLL_SMPI_BUILD_DIR="${PCOLL_SMPI_BUILD_DIR:-${root}/build-smpi}"
"${here}/build-smpi.sh" "${PCOLL_SMPI_BUILD_DIR}"
"${here}/build.sh" "${build}"
pcoll_mpirun_env
export OMP_PROC_BIND="${OMP_PROC_BIND:-false}"
pcoll_msg "running the tests"
cd "${build}"
ctest --output-on-failure -j "$(pcoll_jobs)" "$@"
