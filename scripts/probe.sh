#!/usr/bin/env bash
# The OSU-style allreduce probe: for each rank count, one launch of collprobe times
# PMPI_Allreduce, every pcoll allreduce algorithm (vendor and auto included) and Open MPI's
# coll/tuned forced to each of its algorithms (MPI_T), interleaved; then scripts/lib/probe_report.py
# prints, per P, the table against PMPI and the table of pcoll against Open MPI's same algorithm.
#   scripts/probe.sh [--ranks "2 3 4"] [--blocks 40] [--sizes 8,64,1k,8k,64k,1m] [--out DIR]
#       [--build DIR] [--no-build] [-- extra collprobe flags]
# --build DIR: the build tree whose collprobe (and pcoll) to run, e.g. a tree of another revision
# for a before/after comparison (default: build/ of this checkout). --no-build runs it as it is.
# Writes DIR/probe_P<P>.{csv,log}, DIR/uptime.txt (the load before and after each run; other jobs
# on the machine move the absolute times) and DIR/report.md
# (DIR: <build>/results/probe-<date> by default). Ranks above the core count are oversubscribed:
# Open MPI then yields when idle (mpi_yield_when_idle=1), as every oversubscribed run here does.
set -euo pipefail
here="$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd -P)"
# shellcheck source=lib/common.sh
source "${here}/lib/common.sh"
export PCOLL_LOG_TAG=probe
root="$(pcoll_repo_root)"
build="${root}/build" ranks="2 3 4" blocks=40 sizes="" out="" do_build=1
extra=()
while [[ $# -gt 0 ]]; do
    case "$1" in
        --ranks) ranks="$2"; shift 2 ;;
        --blocks) blocks="$2"; shift 2 ;;
        --sizes) sizes="$2"; shift 2 ;;
        --out) out="$2"; shift 2 ;;
        --build) build="$2"; shift 2 ;;
        --no-build) do_build=0; shift ;;
        --) shift; extra=("$@"); break ;;
        -h|--help) sed -n '2,13p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) pcoll_die "unknown argument '$1' (see --help)" ;;
    esac
done
[[ "${blocks}" =~ ^[1-9][0-9]*$ ]] || pcoll_die "--blocks '${blocks}': a positive integer"
for P in ${ranks}; do
    [[ "${P}" =~ ^[1-9][0-9]*$ ]] || pcoll_die "--ranks: '${P}' is not a positive integer"
done
build="$(mkdir -p -- "${build}" && cd -- "${build}" && pwd -P)"

# The source tree the build was configured from (another checkout's, with --build).
src="$(sed -n 's/^CMAKE_HOME_DIRECTORY:INTERNAL=//p' "${build}/CMakeCache.txt" 2>/dev/null || true)"
if [[ ${do_build} -eq 1 ]]; then
    if [[ -n "${src}" ]]; then  # an existing tree: build it from its own sources
        cmake --build "${build}" -j "$(pcoll_jobs)" --target collprobe >"${build}.probe-build.log" 2>&1 ||
            { tail -n 30 "${build}.probe-build.log" >&2; pcoll_die "building collprobe in ${build} failed"; }
    else
        "${here}/build.sh" "${build}" collprobe
        src="${root}"
    fi
fi
probe="${build}/apps/collprobe/collprobe"
[[ -x "${probe}" ]] || pcoll_die "${probe} not found (build it, or drop --no-build)"

out="${out:-${build}/results/probe-$(date +%Y%m%d-%H%M%S)}"
mkdir -p -- "${out}"
py="$(pcoll_python)" || pcoll_die "no python3 with numpy"

pcoll_mpirun_env
# coll/tuned honours forced algorithms only with dynamic rules on (without a rules file its
# decisions are then the fixed ones, so pmpi is unchanged); collprobe checks and says so.
export OMPI_MCA_coll_tuned_use_dynamic_rules=1
cores="$(nproc 2>/dev/null || echo 1)"
args=(--blocks "${blocks}")
[[ -n "${sizes}" ]] && args+=(--sizes "${sizes}")
: >"${out}/uptime.txt"
csvs=()
for P in ${ranks}; do
    if (( P > cores )); then
        export OMPI_MCA_mpi_yield_when_idle=1
        pcoll_msg "P=${P} on ${cores} cores: oversubscribed (ranks yield when idle)"
    else
        unset OMPI_MCA_mpi_yield_when_idle
    fi
    base="${out}/probe_P${P}"
    echo "P=${P} before: $(uptime)" >>"${out}/uptime.txt"
    pcoll_msg "P=${P}: $(uptime | sed 's/.*load/load/')"
    load1="$(cut -d' ' -f1 /proc/loadavg 2>/dev/null || echo 0)"
    if awk -v l="${load1}" -v c="${cores}" 'BEGIN { exit !(l > c) }'; then
        pcoll_msg "warning: load ${load1} on ${cores} cores: other processes take turns on" \
            "the cores, so blocks that lose the core are slow; the medians absorb some of it," \
            "the intervals show the rest"
    fi
    mpiexec -n "${P}" "${probe}" "${args[@]}" "${extra[@]}" --csv "${base}.csv" \
        >"${base}.log" 2>&1 ||
        { tail -n 30 "${base}.log" >&2; pcoll_die "collprobe failed at P=${P} (log: ${base}.log)"; }
    echo "P=${P} after:  $(uptime)" >>"${out}/uptime.txt"
    csvs+=("${base}.csv")
done

rev="$(git -C "${src:-${root}}" rev-parse --short HEAD 2>/dev/null || echo '?')"
git -C "${src:-${root}}" diff --quiet HEAD -- 2>/dev/null || rev+=" + uncommitted changes"
echo "collprobe on $(hostname), ${cores} cores, build ${build} (source ${src:-?} at ${rev})"
sed 's/^/    /' "${out}/uptime.txt"
echo
"${py}" "${here}/lib/probe_report.py" "${csvs[@]}" -o "${out}/report.md"
pcoll_msg "results: ${out} (per-P CSV and log, uptime.txt, report.md)"
