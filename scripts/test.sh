#!/usr/bin/env bash
# README's test command: installs what is missing, builds, and runs every test with ctest
# (unit tests without MPI, MPI tests at 1..9, 12 and 16 ranks, oversubscribed, and the SMPI
# simulation tests at 16 simulated ranks), then the MPI tests again against MPICH.
#   scripts/test.sh [--no-mpich] [ctest arguments...]     e.g. scripts/test.sh -R unit
#   scripts/test.sh --sanitize [ctest arguments...]
#
# Trees:
#   build/        Open MPI (the mpi-default alternative): every test. ctest arguments go here.
#   build-mpich/  MPICH (mpicc.mpich, mpiexec.mpich; its parallel HDF5 for the trace): the
#                 library, libpcoll_mpi.so, pcoll-info, the signature and allreduce tests and the
#                 pmpi programs, run at the rank counts that fit (listed with the reason for the
#                 rest); the ctest arguments are added to its selection. --no-mpich leaves it out.
#   build-asan/   --sanitize, instead of the two above: the whole tree in RelWithDebInfo with
#                 -fsanitize=address,undefined -fno-sanitize-recover=all (PCOLL_SANITIZE), Open
#                 MPI, every test but the `smpi` ones (those run SimGrid's SMPI programs, built
#                 in their own uninstrumented tree: nothing of ours under a sanitizer there).
# Environment: PCOLL_BUILD_DIR, PCOLL_MPICH_BUILD_DIR, PCOLL_ASAN_BUILD_DIR, PCOLL_SMPI_BUILD_DIR.
set -euo pipefail
here="$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd -P)"
# shellcheck source=lib/common.sh
source "${here}/lib/common.sh"
root="$(pcoll_repo_root)"

sanitize=0
mpich=1
while [[ $# -gt 0 ]]; do
    case "$1" in
        --sanitize) sanitize=1 ;;
        --no-mpich) mpich=0 ;;
        *) break ;;
    esac
    shift
done

summary=()
failed=0
# run_ctest NAME DIR [ctest arguments...]: ctest in DIR, its output also in DIR.ctest.log; the
# closing line goes to the summary, a failure to the exit status (the other tree still runs).
run_ctest() {
    local name="$1" dir="$2" line
    shift 2
    pcoll_msg "running the tests (${name}: ${dir})"
    if (cd "${dir}" && ctest --output-on-failure -j "$(pcoll_jobs)" "$@") 2>&1 |
        tee "${dir}.ctest.log"; then :; else failed=1; fi
    line="$(grep -E '^[0-9]+% tests passed|^No tests were found' "${dir}.ctest.log" | tail -n 1)"
    summary+=("${name}: ${line:-no ctest summary (see ${dir}.ctest.log)}")
}

pcoll_mpirun_env
export OMP_PROC_BIND="${OMP_PROC_BIND:-false}"

if [[ ${sanitize} -eq 1 ]]; then
    build="${PCOLL_ASAN_BUILD_DIR:-${root}/build-asan}"
    "${here}/build.sh" "${build}" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
        -DPCOLL_SANITIZE=address,undefined
    # No leak checking (detect_leaks=0): Open MPI 4.1 leaves ~100 kB in ~3300 blocks at
    # MPI_Finalize, mostly from the components it dlopens and dlcloses (and the libcrypto they
    # pull in), whose allocation stacks LeakSanitizer's fast unwinder ends after one frame in
    # an "<unknown module>": no suppression by library matches them, and the full unwinder
    # (fast_unwind_on_malloc=0) that would let one match slows every allocation. Memory errors
    # (ASan) and undefined behaviour (UBSan) are what this build checks.
    export ASAN_OPTIONS="detect_leaks=0${ASAN_OPTIONS:+:${ASAN_OPTIONS}}"
    export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1${UBSAN_OPTIONS:+:${UBSAN_OPTIONS}}"
    pcoll_msg "not run under --sanitize: the smpi label (SimGrid's SMPI programs, an uninstrumented tree of their own); pmpi.mpi4py.* are registered DISABLED (python3 preloaded with libasan deadlocks at startup in glibc's locale lock, before any pcoll code)"
    run_ctest "ASan+UBSan (Open MPI)" "${build}" -LE '^smpi$' "$@"
else
    build="${PCOLL_BUILD_DIR:-${root}/build}"
    # The SMPI build first: ctest's smpi.* cases simulate it (tests/smpi), and need these four
    # programs of it (the scripts that simulate build the rest themselves).
    export PCOLL_SMPI_BUILD_DIR="${PCOLL_SMPI_BUILD_DIR:-${root}/build-smpi}"
    "${here}/build-smpi.sh" "${PCOLL_SMPI_BUILD_DIR}" collbench collprobe kmeans cg
    "${here}/build.sh" "${build}"
    if [[ ${mpich} -eq 1 ]]; then
        mpich_build="${PCOLL_MPICH_BUILD_DIR:-${root}/build-mpich}"
        # A representative subset, to keep test.sh near 10 minutes: the library and the
        # interposer, the signature test (every collective under every algorithm, ranks
        # passing different datatypes), the allreduce test, and every pmpi program
        # (pcoll_pmpi_test_programs, tests/pmpi/CMakeLists.txt: no list to keep here).
        mpich_programs=(pcoll_mpi pcoll-info pcoll_mpi_signature pcoll_mpi_allreduce
            pcoll_pmpi_test_programs)
        "${here}/build.sh" "${mpich_build}" "${mpich_programs[@]}" \
            -DPCOLL_WITH_KOKKOS=OFF -DPCOLL_BUILD_APPS=OFF \
            -DMPI_C_COMPILER=mpicc.mpich -DMPI_CXX_COMPILER=mpicxx.mpich \
            -DMPI_Fortran_COMPILER=mpif90.mpich -DMPIEXEC_EXECUTABLE="$(command -v mpiexec.mpich)" \
            -DHDF5_C_COMPILER_EXECUTABLE="$(command -v h5pcc.mpich)"
    fi
    run_ctest "Open MPI" "${build}" "$@"
    if [[ ${mpich} -eq 1 ]]; then
        # MPICH 4.0 as Debian builds it (ch4:ucx) busy-polls and never yields the core, so with
        # more ranks than cores every message waits out a scheduler time slice (allreduce.np3
        # 70-120 s here, np5 270 s; Open MPI, with mpi_yield_when_idle, a few seconds). The
        # MPICH tree runs the rank counts that fit: the signature and allreduce programs at
        # P = 1, 2 and 3 (allreduce at 1 and 2), and every pmpi case but the matrices at P > 3
        # (all algorithms through the interposer run at P = 3). The Open MPI tree runs them all.
        mpich_selected='^(signature|allreduce)\.np[0-9]+$|^pmpi\.'
        mpich_excluded='^allreduce\.np3$|^[a-z_]+\.np([4-9]|[1-9][0-9])$|^pmpi\.(c|f08|rest|nonblocking_[a-z_]+|lifetime_[a-z_]+|reproducible_[a-z_]+)\.np([4-9]|[1-9][0-9])$'
        pcoll_msg "MPICH tree: not run (MPICH busy-polls: more ranks than these 2 cores take 10-100x longer; run in the Open MPI tree):"
        (cd "${mpich_build}" && ctest -N -L '^mpi$' -R "${mpich_selected}" | grep -E "Test +#" |
            sed -n 's/^ *Test *#[0-9]*: //p' | grep -E "${mpich_excluded}") | paste -sd' ' | fold -s -w 100 >&2 || true
        pcoll_msg "MPICH tree: not built or run: the other tests/mpi programs (errors, hierarchical, rooted, alltoall, alltoallv, trace: the signature test covers their collectives under MPICH)"
        pcoll_msg "MPICH tree: not run: the tests without the mpi label (unit, install, smpi: no MPI, or the Open MPI tree's); pmpi.mpi4py.* are registered DISABLED (Debian's mpi4py is built against Open MPI)"
        run_ctest "MPICH" "${mpich_build}" -L '^mpi$' -R "${mpich_selected}" -E "${mpich_excluded}" "$@"
    fi
fi

for line in "${summary[@]}"; do pcoll_msg "${line}"; done
exit "${failed}"
