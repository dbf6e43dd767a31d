#!/usr/bin/env bash
# The Krylov case study: for each rank count and solver, runs apps/cg on a deck with each
# allreduce algorithm (warm-ups, then timed runs, algorithms in rotating order within one
# launch), then prints the table (iterations, time per iteration with its spread, allreduce
# share, speedup over vendor with a bootstrap interval and whether it exceeds the noise) and
# writes a PNG of the time split per iteration.
#   scripts/reproduce-cg.sh [--ranks "2 4"] [--deck medium] [--runs 5] [--warmup 1]
#       [--algos "vendor ring recursive_doubling chiara auto"] [--solver cg|cg1|pipecg|all]
#       [--threads 1] [--refine N] [--out DIR] [--no-build]
# pipecg runs twice: with --overlap false (blocking PCOLL_Allreduce, so the algorithms compare)
# and with the vendor's MPI_Iallreduce overlapping the stencil (row `MPI_Iallreduce`). --refine N
# adds the refinement table (h halved N times) at the first P. Ranks above the core count are
# oversubscribed (fine for correctness and ratios, not absolute times). On a cluster,
# PCOLL_LAUNCHER="srun" replaces mpiexec.
# Writes DIR/cg_<deck>_<solver>_P<P>.{csv,h5,log}, DIR/table.txt, DIR/cg-split.png
# (DIR: <build>/results/cg-<deck>-<date> by default).
set -euo pipefail
here="$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd -P)"
# shellcheck source=lib/common.sh
source "${here}/lib/common.sh"
export PCOLL_LOG_TAG=reproduce-cg
root="$(pcoll_repo_root)"
build="${PCOLL_BUILD_DIR:-${root}/build}"
ranks="2 4" deck=medium runs=5 warmup=1 algos="vendor ring recursive_doubling chiara auto"
solver=all threads="${OMP_NUM_THREADS:-1}" refine=0 out="" do_build=1
while [[ $# -gt 0 ]]; do
    case "$1" in
        --ranks) ranks="$2"; shift 2 ;;
        --deck) deck="$2"; shift 2 ;;
        --runs) runs="$2"; shift 2 ;;
        --warmup) warmup="$2"; shift 2 ;;
        --algos) algos="$2"; shift 2 ;;
        --solver) solver="$2"; shift 2 ;;
        --threads) threads="$2"; shift 2 ;;
        --refine) refine="$2"; shift 2 ;;
        --out) out="$2"; shift 2 ;;
        --no-build) do_build=0; shift ;;
        -h|--help) sed -n '2,17p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) pcoll_die "unknown argument '$1' (see --help)" ;;
    esac
done
case "${solver}" in
    all) solvers="cg cg1 pipecg" ;;
    cg|cg1|pipecg) solvers="${solver}" ;;
    *) pcoll_die "--solver '${solver}' is not allowed (cg, cg1, pipecg or all)" ;;
esac
[[ "${runs}" =~ ^[0-9]+$ && "${warmup}" =~ ^[0-9]+$ && "${refine}" =~ ^[0-9]+$ ]] ||
    pcoll_die "--runs, --warmup and --refine take non-negative integers"

deck_file="${root}/inputs/cg/${deck}.toml"
[[ -f "${deck}" ]] && deck_file="$(cd -- "$(dirname -- "${deck}")" && pwd -P)/$(basename -- "${deck}")"
if [[ ! -f "${deck_file}" ]]; then
    decks=("${root}"/inputs/cg/*.toml)
    decks=("${decks[@]##*/}")
    pcoll_die "no deck '${deck}' (have: ${decks[*]%.toml})"
fi
deck_name="$(basename -- "${deck_file}" .toml)"

if [[ ${do_build} -eq 1 || ! -x "${build}/apps/cg/cg" ]]; then
    "${here}/build.sh" "${build}" cg
fi
cg="${build}/apps/cg/cg"
[[ -x "${cg}" ]] || pcoll_die "${cg} was not built (Kokkos off?)"

out="${out:-${build}/results/cg-${deck_name}-$(date +%Y%m%d-%H%M%S)}"
mkdir -p "${out}"
py="$(pcoll_python)" || pcoll_die "no python3 with h5py + matplotlib"

launcher="${PCOLL_LAUNCHER:-mpiexec}"
cores="$(nproc 2>/dev/null || echo 1)"
[[ "${launcher}" == mpiexec* ]] && pcoll_mpirun_env
export OMP_NUM_THREADS="${threads}"
export OMP_PROC_BIND="${OMP_PROC_BIND:-false}"
csvs=()
# One launch: cg with the deck and the given extra flags; its CSV joins the table.
launch() {
    local P="$1" base="$2"
    shift 2
    # shellcheck disable=SC2086
    ${launcher} -n "${P}" "${cg}" --deck "${deck_file}" --runs "${runs}" --warmup "${warmup}" \
        --csv "${base}.csv" --output "${base}.h5" "$@" >"${base}.log" 2>&1 ||
        { tail -n 30 "${base}.log" >&2; pcoll_die "cg failed at P=${P} (log: ${base}.log)"; }
    grep -A12 '^summary' "${base}.log" | sed 's/^/  /' >&2
    csvs+=("${base}.csv")
}
first=1
for P in ${ranks}; do
    if (( P * threads > cores )); then
        # Oversubscribed: ranks yield instead of spinning, idle OpenMP threads sleep.
        export OMPI_MCA_mpi_yield_when_idle=1
        export OMP_WAIT_POLICY="${OMP_WAIT_POLICY:-passive}"
        pcoll_msg "P=${P} x ${threads} thread(s) on ${cores} cores: oversubscribed"
    fi
    for s in ${solvers}; do
        base="${out}/cg_${deck_name}_${s}_P${P}"
        pcoll_msg "P=${P}: ${s}, deck ${deck_name}, algorithms ${algos// /,}, ${warmup} warm-up + ${runs} runs"
        extra=()
        (( first == 1 && refine > 0 )) && extra+=(--refine "${refine}") && first=0
        if [[ "${s}" == pipecg ]]; then
            launch "${P}" "${base}" --solver pipecg --overlap false --allreduce "${algos// /,}" "${extra[@]}"
            pcoll_msg "P=${P}: pipecg with the vendor's MPI_Iallreduce overlapping the stencil"
            launch "${P}" "${base}_overlap" --solver pipecg --overlap true --allreduce vendor
        else
            launch "${P}" "${base}" --solver "${s}" --allreduce "${algos// /,}" "${extra[@]}"
        fi
        if [[ ${#extra[@]} -gt 0 ]]; then
            sed -n '/^refinement/,$p' "${base}.log" | tee "${out}/refinement.txt"
        fi
    done
done

echo
echo "CG case study, deck ${deck_name}, $(hostname), ${cores} cores"
"${py}" "${here}/plot_cg.py" "${csvs[@]}" -o "${out}/cg-split.png" | tee "${out}/table.txt"
if [[ -f "${out}/refinement.txt" ]]; then
    tee -a "${out}/table.txt" <"${out}/refinement.txt"
fi
echo "results: ${out} (per-P CSV, HDF5 per-iteration phase times, logs)"
