#!/usr/bin/env bash
# Reproduces the CHiArA paper's k-means case study (Section VI, Fig. 12): for each rank count,
# runs the kmeans app with each allreduce algorithm (warm-ups, then timed runs, algorithms in a
# balanced rotating order within one launch), prints the table beside the paper's numbers
# (medians with their spread, each speedup with its 95% bootstrap interval, "within noise" when
# it contains 1.0) and writes a Fig.-12-style PNG (compute vs time inside the three allreduces).
#   scripts/reproduce-kmeans.sh [--ranks "2 4 8"] [--deck polaris] [--runs 10] [--warmup 2]
#       [--algos "vendor chiara"] [--threads 1] [--iterations N] [--out DIR] [--no-build]
#       [--target-width PCT [--max-runs N]] [--quiet]
# --quiet: progress lines only; the table goes to DIR/table.txt, not to the terminal (demo.sh
#   prints its own summary of it).
# --target-width PCT: say whether each speedup's 95% interval is narrower than +-PCT%; with
#   --max-runs N > --runs, while it is not, launch another --runs runs per algorithm (pooled with
#   the earlier ones) until it is or N runs are done. The rule looks at the interval's width,
#   never at the speedup or its verdict, so it does not steer the result toward a claim.
# Default algorithms: "vendor chiara" when this build has chiara, else "vendor auto" (auto =
# pcoll's model-chosen best of the algorithms it has), and it says so. Ranks above the core count
# are oversubscribed (fine for correctness and ratios, not for absolute times). On a cluster,
# PCOLL_LAUNCHER="srun" (see scripts/slurm/kmeans.sbatch) replaces mpiexec.
# Writes DIR/kmeans_<deck>_P<P>.{csv,h5,log}, DIR/table.txt, DIR/kmeans-fig12.png
# (DIR: <build>/results/kmeans-<deck>-<date> by default).
set -euo pipefail
here="$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd -P)"
# shellcheck source=lib/common.sh
source "${here}/lib/common.sh"
export PCOLL_LOG_TAG=reproduce-kmeans
root="$(pcoll_repo_root)"
build="${PCOLL_BUILD_DIR:-${root}/build}"
ranks="2 4 8" deck=polaris runs=10 warmup=2 algos="" threads="${OMP_NUM_THREADS:-1}"
iterations="" out="" do_build=1 target="" max_runs="" quiet=0
while [[ $# -gt 0 ]]; do
    case "$1" in
        --ranks) ranks="$2"; shift 2 ;;
        --deck) deck="$2"; shift 2 ;;
        --runs) runs="$2"; shift 2 ;;
        --warmup) warmup="$2"; shift 2 ;;
        --algos) algos="$2"; shift 2 ;;
        --threads) threads="$2"; shift 2 ;;
        --iterations) iterations="$2"; shift 2 ;;
        --out) out="$2"; shift 2 ;;
        --no-build) do_build=0; shift ;;
        --target-width) target="$2"; shift 2 ;;
        --max-runs) max_runs="$2"; shift 2 ;;
        --quiet) quiet=1; shift ;;
        -h|--help) sed -n '2,22p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) pcoll_die "unknown argument '$1' (see --help)" ;;
    esac
done

[[ -z "${max_runs}" || "${max_runs}" =~ ^[0-9]+$ ]] ||
    pcoll_die "--max-runs '${max_runs}': expected a whole number of runs"
deck_file="${root}/inputs/kmeans/${deck}.toml"
[[ -f "${deck}" ]] && deck_file="$(cd -- "$(dirname -- "${deck}")" && pwd -P)/$(basename -- "${deck}")"
if [[ ! -f "${deck_file}" ]]; then
    decks=("${root}"/inputs/kmeans/*.toml)
    decks=("${decks[@]##*/}")
    pcoll_die "no deck '${deck}' (have: ${decks[*]%.toml})"
fi
deck_name="$(basename -- "${deck_file}" .toml)"

if [[ ${do_build} -eq 1 || ! -x "${build}/apps/kmeans/kmeans" ]]; then
    "${here}/build.sh" "${build}" kmeans pcoll-info
fi
kmeans="${build}/apps/kmeans/kmeans"
[[ -x "${kmeans}" ]] || pcoll_die "${kmeans} was not built (Kokkos off?)"

# The allreduce algorithms this build has, from pcoll-info's parameter table.
# (Captured first: awk stops reading early, which would SIGPIPE pcoll-info under pipefail.)
info="$("${build}/collectives/pcoll-info" 2>/dev/null)" || pcoll_die "${build}/collectives/pcoll-info failed"
have="$(awk '/PCOLL_ALLREDUCE =/ {f = 1; next} f && /allowed/ {sub(/.*allowed /, ""); print; exit}' \
    <<<"${info}" | tr '|' ' ')"
[[ -n "${have}" ]] || pcoll_die "cannot list the allreduce algorithms (pcoll-info failed)"
if [[ -z "${algos}" ]]; then
    if [[ " ${have} " == *" chiara "* ]]; then
        algos="vendor chiara"
    else
        algos="vendor auto"
        pcoll_msg "this build has no 'chiara' allreduce yet (have: ${have}); comparing vendor with" \
            "'auto', pcoll's model-chosen best of those. Pass --algos to choose."
    fi
fi
for a in ${algos}; do
    [[ " ${have} " == *" ${a} "* ]] || pcoll_die "allreduce '${a}' is not in this build (have: ${have})"
done

out="${out:-${build}/results/kmeans-${deck_name}-$(date +%Y%m%d-%H%M%S)}"
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
csvs=()
# Other jobs on the machine widen the intervals: the table says how loaded it was.
load_before="$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo '?')"
for P in ${ranks}; do
    if (( P * threads > cores )); then
        # Oversubscribed: ranks yield instead of spinning, threads are not pinned, idle OpenMP
        # threads sleep. Fine for correctness and for ratios measured in one launch.
        export OMPI_MCA_mpi_yield_when_idle=1
        export OMP_WAIT_POLICY="${OMP_WAIT_POLICY:-passive}"
        pcoll_msg "P=${P} x ${threads} thread(s) on ${cores} cores: oversubscribed"
    fi
    # Unpinned unless the user pins (OMP_PROC_BIND/OMP_PLACES, or the launcher's binding).
    export OMP_PROC_BIND="${OMP_PROC_BIND:-false}"
    base="${out}/kmeans_${deck_name}_P${P}"
    done_runs=0 batch=1 p_csvs=()
    while :; do
        name="${base}"
        (( batch > 1 )) && name="${base}_batch${batch}"
        pcoll_msg "P=${P}: deck ${deck_name}, algorithms ${algos// /,}, ${warmup} warm-up +" \
            "${runs} runs${max_runs:+ (batch ${batch}, at most ${max_runs} runs)}"
        # shellcheck disable=SC2086
        ${launcher} -n "${P}" "${kmeans}" --deck "${deck_file}" --allreduce "${algos// /,}" \
            --runs "${runs}" --warmup "${warmup}" "${extra[@]}" \
            --csv "${name}.csv" --output "${name}.h5" >"${name}.log" 2>&1 ||
            { tail -n 30 "${name}.log" >&2; pcoll_die "kmeans failed at P=${P} (log: ${name}.log)"; }
        [[ ${quiet} -eq 1 ]] || grep -A20 '^summary' "${name}.log" | sed 's/^/  /' >&2
        p_csvs+=("${name}.csv")
        done_runs=$((done_runs + runs))
        [[ -n "${target}" && -n "${max_runs}" ]] || break
        (( done_runs + runs <= max_runs )) || break
        "${py}" "${here}/lib/plot_kmeans.py" "${p_csvs[@]}" --target-width "${target}" --check && break
        pcoll_msg "P=${P}: an interval is still wider than +-${target}% after ${done_runs} runs:" \
            "${runs} more"
        batch=$((batch + 1))
    done
    csvs+=("${p_csvs[@]}")
done

load_after="$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo '?')"
plot_args=()
[[ -n "${target}" ]] && plot_args+=(--target-width "${target}")
report() {
    echo "k-means case study (CHiArA paper Section VI), deck ${deck_name}, $(hostname), ${cores} cores," \
        "load average ${load_before} before the runs, ${load_after} after"
    "${py}" "${here}/lib/plot_kmeans.py" "${csvs[@]}" -o "${out}/kmeans-fig12.png" \
        --decks "${root}/inputs/kmeans" "${plot_args[@]}"
}
if [[ ${quiet} -eq 1 ]]; then
    report >"${out}/table.txt"
    printf '%s\n' "${csvs[@]}" >"${out}/csvs.txt"  # the runs the table is made from
else
    echo
    report | tee "${out}/table.txt"
    echo "results: ${out} (per-P CSV, HDF5 per-iteration phase times, logs)"
fi
