# shellcheck shell=bash
# Shared shell helpers for pcoll scripts.  Source this file; it defines
# functions only and does not change shell options.
#
#   pcoll_repo_root      print the absolute path of the repository root
#   pcoll_msg / pcoll_die  progress / fatal messages on stderr
#                        (prefix "${PCOLL_LOG_TAG:-pcoll}: ")
#   pcoll_mpirun_env     export the environment Open MPI needs here
#                        (run as root, oversubscription)
#   pcoll_python         print a python3 that can import h5py and matplotlib

# Directory of this file, resolved once at source time.
_PCOLL_COMMON_DIR="${BASH_SOURCE[0]%/*}"
[[ "${_PCOLL_COMMON_DIR}" == "${BASH_SOURCE[0]}" ]] && _PCOLL_COMMON_DIR=.
_PCOLL_COMMON_DIR="$(cd -- "${_PCOLL_COMMON_DIR}" && pwd -P)"

pcoll_repo_root() {
    (cd -- "${_PCOLL_COMMON_DIR}/../.." && pwd -P)
}

pcoll_msg() {
    printf '%s: %s\n' "${PCOLL_LOG_TAG:-pcoll}" "$*" >&2
}

pcoll_die() {
    printf '%s: error: %s\n' "${PCOLL_LOG_TAG:-pcoll}" "$*" >&2
    exit 1
}

# Number of parallel build jobs: $PCOLL_JOBS, else the number of CPUs.
pcoll_jobs() {
    if [[ -n "${PCOLL_JOBS:-}" ]]; then
        printf '%s\n' "${PCOLL_JOBS}"
    else
        nproc 2>/dev/null || getconf _NPROCESSORS_ONLN 2>/dev/null || echo 2
    fi
}

# Open MPI refuses to run as root unless told to, and refuses to start more
# ranks than there are cores unless oversubscription is allowed.
pcoll_mpirun_env() {
    if [[ "$(id -u)" -eq 0 ]]; then
        export OMPI_ALLOW_RUN_AS_ROOT=1
        export OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
    fi
    export OMPI_MCA_rmaps_base_oversubscribe=1
}

# Print the first interpreter that can import h5py and matplotlib.
# /usr/bin/python3 comes first: a python3 earlier on PATH (pyenv, venv, conda)
# usually cannot see Debian's python3-h5py / python3-matplotlib.
# When none can, the Debian packages are installed first (scripts/setup-deps.sh, the
# apt part only) and the search runs again: an entry script never stops on a fresh
# machine for want of what it could install itself. PCOLL_NO_INSTALL=1 only searches (CMake's
# configure step, which must never install anything).
_pcoll_find_python() {
    local cand exe
    for cand in /usr/bin/python3 python3; do
        exe="$(command -v -- "${cand}" 2>/dev/null)" || continue
        if "${exe}" -c 'import h5py, matplotlib' >/dev/null 2>&1; then
            printf '%s\n' "${exe}"
            return 0
        fi
    done
    return 1
}

pcoll_python() {
    _pcoll_find_python && return 0
    if [[ "${PCOLL_NO_INSTALL:-0}" != 1 ]]; then
        pcoll_msg "no python3 with h5py and matplotlib yet: installing Debian's packages first"
        "${_PCOLL_COMMON_DIR}/../setup-deps.sh" --skip-kokkos >&2 || true
        _pcoll_find_python && return 0
    fi
    printf 'pcoll: no python3 with h5py and matplotlib found (tried: /usr/bin/python3 python3, after scripts/setup-deps.sh); install python3-h5py python3-matplotlib (Debian) and use /usr/bin/python3\n' >&2
    return 1
}
