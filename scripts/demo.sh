#!/usr/bin/env bash
# README's first command: installs what is missing, builds, and runs pcoll's main job, the k-means
# case study of the CHiArA paper ("Configurable and Hierarchical Allreduce", Section VI): Lloyd
# k-means with its three allreduces per iteration, through the vendor MPI_Allreduce and through
# pcoll's algorithms behind the same calls. Two parts, one table:
#   1. measured here: P = 4 ranks (oversubscribed on small machines), quick deck, vendor vs
#      chiara, 300 runs each and 300 more while the speedup's 95% interval is wider than +-10%
#      (--target-width), up to 1200 (--max-runs); a Fig.-12-style PNG labelled in ms with each
#      speedup and its interval;
#   2. simulated: the same program in SimGrid SMPI at P = 256 on the Polaris-like platform model,
#      polaris deck (the paper's D = K = 256), vendor (SMPI's MPICH selection) vs chiara vs auto,
#      beside the paper's measured 1.19x. About 20 s after the SMPI build.
# The table says which rows are measured, which simulated and which published.
#   scripts/demo.sh [--ranks P] [--deck quick|polaris|fugaku|FILE] [--runs N] [--warmup N]
#                   [--algos "vendor chiara"] [--out DIR] [--target-width PCT] [--max-runs N]
#                   [--sim-ranks "256"] [--no-sim]
#   scripts/demo.sh --collectives [options of scripts/demo-collectives.sh]
#       the collectives demo instead: collbench, vendor vs every allreduce algorithm, with the
#       HDF5 log, summary table and plots.
set -euo pipefail
here="$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd -P)"
# shellcheck source=lib/common.sh
source "${here}/lib/common.sh"
root="$(pcoll_repo_root)"

if [[ "${1:-}" == "--collectives" ]]; then
    shift
    exec "${here}/demo-collectives.sh" "$@"
fi
ranks=4 deck=quick runs=300 warmup=2 algos="" out="${root}/demo-out" target=10
max_runs=1200 sim_ranks=256 sim=1
while [[ $# -gt 0 ]]; do
    case "$1" in
        --ranks) ranks="$2"; shift 2 ;;
        --deck) deck="$2"; shift 2 ;;
        --runs) runs="$2"; shift 2 ;;
        --warmup) warmup="$2"; shift 2 ;;
        --algos) algos="$2"; shift 2 ;;
        --out) out="$2"; shift 2 ;;
        --target-width) target="$2"; shift 2 ;;
        --max-runs) max_runs="$2"; shift 2 ;;
        --sim-ranks) sim_ranks="$2"; shift 2 ;;
        --no-sim) sim=0; shift ;;
        -h|--help) sed -n '2,20p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) pcoll_die "unknown argument '$1' (see --help)" ;;
    esac
done
# Install first, check after: on a fresh machine nothing below is there yet.
"${here}/setup-deps.sh"
py="$(pcoll_python)" || pcoll_die "the report needs Debian's python3 with h5py and matplotlib"

# 1. Measured here. Only what the demo runs is built: the tests take most of a full build.
"${here}/build.sh" "${PCOLL_BUILD_DIR:-${root}/build}" kmeans pcoll-info
args=(--ranks "${ranks}" --deck "${deck}" --runs "${runs}" --warmup "${warmup}"
      --out "${out}/kmeans" --target-width "${target}" --max-runs "${max_runs}" --no-build --quiet)
[[ -n "${algos}" ]] && args+=(--algos "${algos}")
"${here}/reproduce-kmeans.sh" "${args[@]}"
mapfile -t measured <"${out}/kmeans/csvs.txt"

# 2. Simulated at the paper's scale (the SMPI tree builds once, kmeans only).
simulated=()
if [[ ${sim} -eq 1 ]]; then
    pcoll_msg "simulating k-means at P = ${sim_ranks} on the Polaris-like model (SimGrid SMPI)"
    "${here}/simulate.sh" --experiments kmeans --platforms polaris --selectors mpich \
        --algos "chiara auto" --kmeans-ranks "${sim_ranks}" --out "${out}/sim" \
        >"${out}/sim.log" 2>&1 ||
        { tail -n 20 "${out}/sim.log" >&2; pcoll_die "the simulation failed (log: ${out}/sim.log)"; }
    for P in ${sim_ranks}; do simulated+=("${out}/sim/cells/kmeans-polaris-P${P}-mpich.csv"); done
fi

echo
echo "pcoll demo: k-means (CHiArA paper, Section VI), vendor MPI_Allreduce vs pcoll"
echo "this machine: $(hostname), $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)"
report=(--measured "${measured[@]}" --decks "${root}/inputs/kmeans" --target-width "${target}")
[[ ${#simulated[@]} -gt 0 ]] && report+=(--simulated "${simulated[@]}")
"${py}" "${here}/lib/demo_report.py" "${report[@]}" | tee "${out}/demo-table.txt"
echo "figure (measured): ${out#"${root}/"}/kmeans/kmeans-fig12.png"
echo "per-run CSV and per-iteration HDF5: ${out#"${root}/"}/kmeans/"
[[ ${#simulated[@]} -gt 0 ]] && echo "simulation: ${out#"${root}/"}/sim/ (cells/, logs/, kmeans.txt)"
exit 0
