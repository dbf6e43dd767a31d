#!/usr/bin/env bash
# README's main command: installs what is missing, builds, and runs pcoll's main job, the k-means
# case study of the CHiArA paper (Section VI) at a small scale: Lloyd k-means with its three
# allreduces per iteration through the vendor MPI_Allreduce and through CHiArA, at 4 ranks
# (oversubscribed on small machines) on the quick deck, and prints the paper-style table (time per
# run split into compute and the three allreduces, the speedup with its 95% bootstrap interval)
# with a Fig.-12-style PNG. It runs 300 runs per algorithm and, while the interval is wider than
# +-10% (--target-width), 300 more, up to 1200 (--max-runs); then it says whether the interval is
# that narrow or, if the runs varied too much, the width it reached and how many runs would do.
# On a 2-core machine loaded by other builds (load average 7-20) 300 runs of the quick deck
# (~20-40 s) reached +-2.6..20%, 100 runs +-9..16%, 5 runs +-74% (see README).
#   scripts/demo.sh [--ranks P] [--deck quick|polaris|fugaku|FILE] [--runs N] [--warmup N]
#                   [--algos "vendor chiara"] [--out DIR] [--target-width PCT] [--max-runs N]
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
ranks=4 deck=quick runs=300 warmup=2 algos="" out="${root}/demo-out/kmeans" target=10
max_runs=1200
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
        -h|--help) sed -n '2,16p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) pcoll_die "unknown argument '$1' (see --help)" ;;
    esac
done

# Only what the demo runs: the tests take most of a full build on a small machine.
"${here}/build.sh" "${PCOLL_BUILD_DIR:-${root}/build}" kmeans pcoll-info
args=(--ranks "${ranks}" --deck "${deck}" --runs "${runs}" --warmup "${warmup}" --out "${out}"
      --target-width "${target}" --max-runs "${max_runs}" --no-build)
[[ -n "${algos}" ]] && args+=(--algos "${algos}")
exec "${here}/reproduce-kmeans.sh" "${args[@]}"
