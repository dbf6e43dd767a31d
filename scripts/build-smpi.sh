#!/usr/bin/env bash
# Builds pcoll for SimGrid's SMPI simulator (PCOLL_SMPI=ON: smpicc/smpicxx, no parallel HDF5,
# Kokkos linked statically and privatized per simulated rank) after installing what is missing.
#   scripts/build-smpi.sh [BUILD_DIR [TARGET...]]   (default: build-smpi/ under the repository
#                                                  root, every target)
# Targets: every app (collbench, collprobe, kmeans, cg, fft3d) as SMPI programs to run with
# smpirun (scripts/simulate.sh, scripts/reproduce-cg.sh --smpi, reproduce-fft.sh, demo.sh: see
# docs/simulation.md); scripts/demo.sh builds only kmeans.
set -euo pipefail
here="$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd -P)"
# shellcheck source=lib/common.sh
source "${here}/lib/common.sh"
root="$(pcoll_repo_root)"
build="${1:-${root}/build-smpi}"
[[ $# -gt 0 ]] && shift
targets=()
[[ $# -gt 0 ]] && targets=(--target "$@")

"${here}/setup-deps.sh"
pcoll_msg "configuring the SMPI build in ${build}"
cmake -S "${root}" -B "${build}" -DCMAKE_BUILD_TYPE="${CMAKE_BUILD_TYPE:-Release}" -DPCOLL_SMPI=ON \
    -DPCOLL_WITH_KOKKOS=ON -DKokkos_ROOT="${root}/.deps/kokkos" -DPCOLL_BUILD_APPS=ON \
    -DPCOLL_BUILD_TESTS=OFF >"${build}.configure.log" 2>&1 ||
    { cat "${build}.configure.log" >&2; pcoll_die "cmake configure (SMPI) failed"; }
pcoll_msg "building the SMPI tree (log: ${build}.build.log)"
cmake --build "${build}" -j "$(pcoll_jobs)" "${targets[@]}" >"${build}.build.log" 2>&1 ||
    { tail -n 60 "${build}.build.log" >&2; pcoll_die "SMPI build failed"; }
progs=()
for app in collbench collprobe kmeans cg fft3d; do
    if [[ -x "${build}/apps/${app}/${app}" ]]; then progs+=("${build}/apps/${app}/${app}"); fi
done
pcoll_msg "SMPI programs: ${progs[*]}"
