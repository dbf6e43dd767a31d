#!/usr/bin/env bash
# Installs the dependencies (idempotent, fast when present), configures and builds pcoll.
#   scripts/build.sh [BUILD_DIR [TARGET...]] [-DVAR=VALUE...]
#       default: build, all targets; CMAKE_BUILD_TYPE defaults to Release; a -D argument goes
#       to the configure step after the defaults (so it can override them, e.g.
#       -DPCOLL_WITH_KOKKOS=OFF), the others are targets
set -euo pipefail
here="$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd -P)"
# shellcheck source=lib/common.sh
source "${here}/lib/common.sh"
root="$(pcoll_repo_root)"
build="${1:-${root}/build}"
[[ $# -gt 0 ]] && shift
targets=()
defines=()
for arg in "$@"; do
    if [[ "${arg}" == -D* ]]; then defines+=("${arg}"); else targets+=("${arg}"); fi
done
[[ ${#targets[@]} -gt 0 ]] && targets=(--target "${targets[@]}")

"${here}/setup-deps.sh"
pcoll_msg "configuring ${build}"
cmake -S "${root}" -B "${build}" -DCMAKE_BUILD_TYPE="${CMAKE_BUILD_TYPE:-Release}" \
    -DPCOLL_WITH_KOKKOS=ON -DPCOLL_WITH_HDF5=ON -DPCOLL_BUILD_APPS=ON -DPCOLL_BUILD_TESTS=ON \
    -DPCOLL_SMPI_BUILD_DIR="${PCOLL_SMPI_BUILD_DIR:-${root}/build-smpi}" \
    "${defines[@]+"${defines[@]}"}" >"${build}.configure.log" 2>&1 ||
    { cat "${build}.configure.log" >&2; pcoll_die "cmake configure failed"; }
pcoll_msg "building (log: ${build}.build.log)"
cmake --build "${build}" -j "$(pcoll_jobs)" "${targets[@]+"${targets[@]}"}" >"${build}.build.log" 2>&1 ||
    { tail -n 60 "${build}.build.log" >&2; pcoll_die "build failed"; }
pcoll_msg "built in ${build}"
