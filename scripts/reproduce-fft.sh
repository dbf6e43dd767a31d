#!/usr/bin/env bash
# The 3-D FFT case study: for each rank count (and grid), runs fft3d with every all-to-all
# algorithm and FFTW-MPI's own transform in one launch (warm-ups, then timed runs, in rotating
# order), prints the table (time per transform, its split, all-to-all share, speedups over vendor
# and over FFTW-MPI with bootstrap intervals, spread) and writes a PNG of the time split.
#   scripts/reproduce-fft.sh [--ranks "2 4"] [--deck quick] [--grids "64 128"] [--runs 5]
#       [--warmup 1] [--algos "vendor pairwise bruck"] [--threads 1] [--iterations N]
#       [--decomp slab|pencil|auto] [--app-args "FLAGS"] [--out DIR] [--no-build]
# Default algorithms: every alltoall algorithm of this build (pcoll-info), vendor first, auto last. --grids
# overrides the deck's grid (one run per grid and P). Uneven grids use PCOLL_Alltoallv, which has
# only vendor and pairwise: give such grids with --algos "vendor pairwise". Ranks above the core
# count are oversubscribed (fine for correctness and ratios, not for absolute times). On a
# cluster, PCOLL_LAUNCHER="srun" replaces mpiexec. Simulated: PCOLL_BUILD_DIR=build-smpi
# PCOLL_LAUNCHER="smpirun -platform P.xml -hostfile H --cfg=smpi/privatization:1" (no FFTW-MPI
# anchor, no HDF5 there; the algorithm list comes from the native build's pcoll-info or
# PCOLL_INFO; with smpi/simulate-computation:no pass --app-args "--sim-fft-per-transform S",
# S the fft column measured natively for the same grid and P). --app-args: more fft3d flags.
# Writes DIR/fft_<deck>[_<grid>]_P<P>.{csv,h5,log}, DIR/table.txt, DIR/fft-split.png
# (DIR: <build>/results/fft-<deck>-<date> by default).
set -euo pipefail
here="$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd -P)"
# shellcheck source=lib/common.sh
source "${here}/lib/common.sh"
export PCOLL_LOG_TAG=reproduce-fft
root="$(pcoll_repo_root)"
build="${PCOLL_BUILD_DIR:-${root}/build}"
ranks="2 4" deck=quick grids="" runs=5 warmup=1 algos="" threads="${OMP_NUM_THREADS:-1}"
iterations="" decomp="" app_args="" out="" do_build=1
while [[ $# -gt 0 ]]; do
    case "$1" in
        --ranks) ranks="$2"; shift 2 ;;
        --deck) deck="$2"; shift 2 ;;
        --grids) grids="$2"; shift 2 ;;
        --runs) runs="$2"; shift 2 ;;
        --warmup) warmup="$2"; shift 2 ;;
        --algos) algos="$2"; shift 2 ;;
        --threads) threads="$2"; shift 2 ;;
        --iterations) iterations="$2"; shift 2 ;;
        --decomp) decomp="$2"; shift 2 ;;
        --app-args) app_args="$2"; shift 2 ;;
        --out) out="$2"; shift 2 ;;
        --no-build) do_build=0; shift ;;
        -h|--help) sed -n '2,19p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) pcoll_die "unknown argument '$1' (see --help)" ;;
    esac
done

deck_file="${root}/inputs/fft3d/${deck}.toml"
[[ -f "${deck}" ]] && deck_file="$(cd -- "$(dirname -- "${deck}")" && pwd -P)/$(basename -- "${deck}")"
if [[ ! -f "${deck_file}" ]]; then
    decks=("${root}"/inputs/fft3d/*.toml)
    decks=("${decks[@]##*/}")
    pcoll_die "no deck '${deck}' (have: ${decks[*]%.toml})"
fi
deck_name="$(basename -- "${deck_file}" .toml)"

# The SMPI build (PCOLL_SMPI=ON in its cache): built by build-smpi.sh, no pcoll-info (the
# algorithms come from --algos or the native build's pcoll-info), no HDF5, no FFTW-MPI.
smpi=0
grep -qs '^PCOLL_SMPI:BOOL=ON' "${build}/CMakeCache.txt" && smpi=1
if [[ ${do_build} -eq 1 || ! -x "${build}/apps/fft3d/fft3d" ]]; then
    if [[ ${smpi} -eq 1 ]]; then
        "${here}/build-smpi.sh" "${build}"
    else
        "${here}/build.sh" "${build}" fft3d pcoll-info
    fi
fi
fft3d="${build}/apps/fft3d/fft3d"
[[ -x "${fft3d}" ]] || pcoll_die "${fft3d} was not built (Kokkos or FFTW off?)"

# The alltoall algorithms this build has, from pcoll-info's parameter table.
info_exe="${build}/collectives/pcoll-info"
[[ ${smpi} -eq 1 ]] && info_exe="${PCOLL_INFO:-${root}/build/collectives/pcoll-info}"
info="$("${info_exe}" 2>/dev/null)" || pcoll_die "${info_exe} failed (set PCOLL_INFO to a native pcoll-info)"
have="$(awk '/PCOLL_ALLTOALL =/ {f = 1; next} f && /allowed/ {sub(/.*allowed /, ""); print; exit}' \
    <<<"${info}" | tr '|' ' ')"
[[ -n "${have}" ]] || pcoll_die "cannot list the alltoall algorithms (pcoll-info failed)"
if [[ -z "${algos}" ]]; then
    # vendor first (the baseline), auto last (it repeats one of the others).
    algos="vendor"
    for a in ${have}; do [[ "${a}" == vendor || "${a}" == auto ]] || algos+=" ${a}"; done
    [[ " ${have} " == *" auto "* ]] && algos+=" auto"
fi
for a in ${algos}; do
    [[ " ${have} " == *" ${a} "* ]] || pcoll_die "alltoall '${a}' is not in this build (have: ${have})"
done

out="${out:-${build}/results/fft-${deck_name}-$(date +%Y%m%d-%H%M%S)}"
mkdir -p "${out}"
py="$(pcoll_python)" || pcoll_die "no python3 with h5py + matplotlib"

launcher="${PCOLL_LAUNCHER:-mpiexec}"
cores="$(nproc 2>/dev/null || echo 1)"
if [[ "${launcher}" == mpiexec* ]]; then
    pcoll_mpirun_env
fi
export OMP_NUM_THREADS="${threads}"
extra=()
[[ -n "${iterations}" ]] && extra+=(--iterations "${iterations}")
[[ -n "${decomp}" ]] && extra+=(--decomp "${decomp}")
# shellcheck disable=SC2206  # word splitting of the user's flags is intended
[[ -n "${app_args}" ]] && extra+=(${app_args})
np_flag=-n
[[ "${launcher}" == smpirun* ]] && np_flag=-np
csvs=()
for grid in ${grids:-deck}; do
    gridargs=()
    [[ "${grid}" != deck ]] && gridargs=(--grid "${grid}")
    for P in ${ranks}; do
        if (( P * threads > cores )); then
            # Oversubscribed: ranks yield instead of spinning, idle OpenMP threads sleep.
            export OMPI_MCA_mpi_yield_when_idle=1
            export OMP_WAIT_POLICY="${OMP_WAIT_POLICY:-passive}"
            pcoll_msg "P=${P} x ${threads} thread(s) on ${cores} cores: oversubscribed"
        fi
        export OMP_PROC_BIND="${OMP_PROC_BIND:-false}"
        base="${out}/fft_${deck_name}_P${P}"
        h5=(--output "${base}.h5")
        [[ ${smpi} -eq 1 ]] && h5=()  # no HDF5 in SMPI builds
        [[ "${grid}" != deck ]] && base="${out}/fft_${deck_name}_${grid//,/x}_P${P}"
        pcoll_msg "P=${P}, grid ${grid}: deck ${deck_name}, algorithms ${algos// /,} + FFTW-MPI," \
            "${warmup} warm-up + ${runs} runs"
        # shellcheck disable=SC2086
        ${launcher} "${np_flag}" "${P}" "${fft3d}" --deck "${deck_file}" "${gridargs[@]}" \
            --alltoall "${algos// /,}" --runs "${runs}" --warmup "${warmup}" "${extra[@]}" -q \
            --csv "${base}.csv" "${h5[@]}" >"${base}.log" 2>&1 ||
            { tail -n 30 "${base}.log" >&2; pcoll_die "fft3d failed at P=${P} (log: ${base}.log)"; }
        sed -n '/^fft3d:/p;/^verification/,/^  ours vs/p' "${base}.log" | sed 's/^/  /' >&2
        csvs+=("${base}.csv")
    done
done

echo
echo "3-D FFT case study, deck ${deck_name}, $(hostname), ${cores} cores, ${threads} thread(s)/rank"
"${py}" "${here}/lib/plot_fft.py" "${csvs[@]}" -o "${out}/fft-split.png" | tee "${out}/table.txt"
if [[ ${smpi} -eq 1 ]]; then
    echo "results: ${out} (per-run CSV, logs; simulated: no FFTW-MPI anchor, no HDF5)"
else
    echo "results: ${out} (per-run CSV, HDF5 per-transform per-rank split, logs)"
fi
