#!/usr/bin/env bash
# pcoll-tune: measures which algorithm serves each (P, message size) best on this machine and
# writes a rules file for `auto` (PCOLL_RULES=FILE; inputs/rules/dev-vm.toml is the development VM's).
#   scripts/pcoll-tune.sh [--ranks "2 3 4 5 6 7 8"] [--coll allreduce] [--sizes 8,64,...]
#       [--algos "vendor ring tree:tree_arity=4 ..."] [--trials 41] [--warmup 5]
#       [--out rules.toml] [--workdir DIR] [--no-build] [--timer bench|probe] [--min-speedup 1.0]
# --timer: how calls are timed. bench (default): collbench, a barrier before each call (a
# synchronized start, one call per sample); probe: collprobe, blocks of back-to-back calls (per
# call: block time / calls, max over ranks: an OSU-style loop, what a tight loop of calls
# sees; every collective collprobe --list names, its sizes as OSU counts them), algorithms with
# their defaults. The two disagree at small sizes on this
# VM (results/2026-12-02-rules-probe): tune with the one that matches how the program calls.
# Method (the warning of "Rings, Trees, and Butterflies: HPX Collectives": never choose and
# report on the same samples):
#   1. selection run: collbench (warm, cached path, barrier before each call, max over ranks,
#      algorithms in a random order per trial) over every candidate; per size the candidate with
#      the lowest median wins;
#   2. validation run: a fresh collbench launch with another order seed, the winner against the
#      vendor only: a non-vendor winner is kept only if the bootstrap interval of its speedup over
#      the vendor lies above --min-speedup (default 1.0: "faster"); otherwise the rule is `vendor`.
#      Rules meant for other machines than the one tuned on want a
#      margin: a 1.04x win on one VM was a 0.8x loss on the next (results/2026-12-04-rules-probe);
#   3. adjacent sizes with the same choice merge into one byte range (boundaries at the geometric
#      midpoint between measured sizes; the last range is open); each rule carries its evidence.
# Ranks above the core count are oversubscribed (say so in the origin); the origin records the
# date, machine, MPI library, pcoll revision and the command.
#
# In simulation, on a SimGrid platform of inputs/platforms/ (SMPI; scripts/simulate.sh runs it):
#   scripts/pcoll-tune.sh --smpi PLATFORM [--ranks "64 128 256 512"] [--check-ranks "1024"]
#       [--fit-sizes "1 64 4096"] [--table] [--spread-ranks] [--sim-out DIR] [--out FILE]
# The sweeps are scripts/simulate.sh --experiments auto's cells (every distinct schedule the
# model considers and SMPI's mpich selector at S = 1 .. 4096 doubles per rank; cells already in
# --sim-out are reused). Simulated times are deterministic, so the fastest schedule per (P, S)
# is the choice; by default a rule is written only where the model alone (on
# inputs/machines/PLATFORM.toml) picks one over 10% slower, for that P alone. Validation: the
# cells not fitted on (--check-ranks, and the sizes outside --fit-sizes), auto's pick with the
# rules and with the model alone against the oracle (scripts/lib/sim_tune.py). Default --out:
# inputs/rules/PLATFORM.toml; the report beside it in --sim-out.
set -euo pipefail
here="$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd -P)"
# shellcheck source=lib/common.sh
source "${here}/lib/common.sh"
export PCOLL_LOG_TAG=pcoll-tune
root="$(pcoll_repo_root)"
build="${PCOLL_BUILD_DIR:-${root}/build}"
ranks="2 3 4 5 6 7 8" coll=allreduce sizes="8,64,512,4k,32k,256k,1m" algos="" trials=41 warmup=5
out="" workdir="" do_build=1 smpi="" check_ranks="" fit_sizes="" sim_out="" table=0 spread=0
ranks_given=0 timer=bench min_speedup=1.0
cmdline="scripts/pcoll-tune.sh $*"
while [[ $# -gt 0 ]]; do
    case "$1" in
        --ranks) ranks="$2"; ranks_given=1; shift 2 ;;
        --smpi) smpi="$2"; shift 2 ;;
        --check-ranks) check_ranks="$2"; shift 2 ;;
        --fit-sizes) fit_sizes="$2"; shift 2 ;;
        --sim-out) sim_out="$2"; shift 2 ;;
        --table) table=1; shift ;;
        --spread-ranks) spread=1; shift ;;
        --coll) coll="$2"; shift 2 ;;
        --sizes) sizes="$2"; shift 2 ;;
        --algos) algos="$2"; shift 2 ;;
        --trials) trials="$2"; shift 2 ;;
        --warmup) warmup="$2"; shift 2 ;;
        --out) out="$2"; shift 2 ;;
        --workdir) workdir="$2"; shift 2 ;;
        --no-build) do_build=0; shift ;;
        --timer) timer="$2"; shift 2 ;;
        --min-speedup) min_speedup="$2"; shift 2 ;;
        -h|--help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "${BASH_SOURCE[0]}"; exit 0 ;;
        *) pcoll_die "unknown argument '$1' (see --help)" ;;
    esac
done
[[ "${trials}" =~ ^[0-9]+$ && "${trials}" -ge 5 ]] || pcoll_die "--trials must be >= 5 (got '${trials}')"
[[ "${timer}" == bench || "${timer}" == probe ]] ||
    pcoll_die "--timer '${timer}': allowed: bench (collbench) or probe (collprobe)"
[[ "${min_speedup}" =~ ^[0-9]+(\.[0-9]+)?$ ]] && awk -v m="${min_speedup}" 'BEGIN { exit !(m >= 1.0 && m <= 10) }' ||
    pcoll_die "--min-speedup '${min_speedup}': a number from 1.0 to 10 (the lower bound of the speedup interval a rule needs)"

if [[ -n "${smpi}" ]]; then
    [[ -f "${root}/inputs/platforms/${smpi}.xml" ]] ||
        pcoll_die "--smpi '${smpi}': no inputs/platforms/${smpi}.xml (polaris, fugaku, aurora)"
    [[ "${coll}" == allreduce ]] || pcoll_die "--smpi tunes allreduce only (the auto experiment's sweeps)"
    [[ ${ranks_given} -eq 1 ]] || ranks="64 128 256 512"
    sim_out="${sim_out:-${root}/build/results/tune-smpi-${smpi}}"
    out="${out:-${root}/inputs/rules/${smpi}.toml}"
    # The sweeps: the auto experiment's cells (resumed where they exist).
    # shellcheck disable=SC2086
    "${here}/simulate.sh" --experiments auto --platforms "${smpi}" --ranks "$(echo ${ranks} ${check_ranks})" \
        --kmeans-ranks none --out "${sim_out}"
    py="$(pcoll_python)" || pcoll_die "no python3 with h5py (see above)"
    rpn="$("${here}/lib/sim_hostfile.sh" "${root}/inputs/platforms/${smpi}.xml" 1024 | sed 's/.*://;q')"
    rev="$(git -C "${root}" rev-parse --short HEAD 2>/dev/null || echo unknown)"
    opts=()
    [[ -n "${fit_sizes}" ]] && opts+=(--fit-sizes "${fit_sizes}")
    [[ ${table} -eq 1 ]] && opts+=(--table)
    [[ ${spread} -eq 1 ]] && opts+=(--spread-ranks)
    "${py}" "${here}/lib/sim_tune.py" "${sim_out}" "${smpi}" --fit "${ranks}" --check "${check_ranks}" \
        --rpn "${rpn}" --out "${out}" --info "${root}/build/collectives/pcoll-info" \
        --machine "${root}/inputs/machines/${smpi}.toml" "${opts[@]}" \
        --origin "tool=pcoll-tune" --origin "date=$(date -u +%Y-%m-%dT%H:%MZ)" \
        --origin "machine=${smpi}.xml (SimGrid SMPI), ${rpn} ranks per host" \
        --origin "mpi=SMPI $(smpirun -version 2>/dev/null | head -n 1 | grep -o '[0-9][0-9.]*' | head -n 1)" \
        --origin "pcoll=${rev}" --origin "command=${cmdline}" | tee "${sim_out}/tune-${smpi}.txt"
    pcoll_msg "rules: ${out} (use: PCOLL_RULES=${out}; report: ${sim_out}/tune-${smpi}.txt)"
    exit 0
fi

if [[ ${do_build} -eq 1 || ! -x "${build}/apps/collbench/collbench" ||
      ! -x "${build}/apps/collprobe/collprobe" ]]; then
    "${here}/build.sh" "${build}" collbench collprobe pcoll-info
fi
probe="${build}/apps/collprobe/collprobe"
bench="${build}/apps/collbench/collbench"
[[ -x "${bench}" ]] || pcoll_die "${bench} was not built"
lister="$([[ "${timer}" == probe ]] && echo "${probe}" || echo "${bench}")"
listed="$("${lister}" --list 2>/dev/null | awk -v c="${coll}" '$1 == c {$1 = ""; sub(/^ +/, ""); print}')"
[[ -n "${listed}" ]] || pcoll_die "$(basename "${lister}") cannot run '${coll}' (its --list: $("${lister}" --list 2>/dev/null | awk '{print $1}' | paste -sd ' '))"
if [[ -z "${algos}" ]]; then
    # Every algorithm with its defaults, plus (collbench) the parameter settings most worth
    # trying here; collprobe's entries are algorithm names, with their defaults.
    algos="${listed}"
    if [[ "${timer}" == bench ]]; then
        [[ " ${listed} " == *" tree "* ]] && algos+=" tree:tree_arity=4"
        [[ " ${listed} " == *" ring "* ]] && algos+=" ring:ring_segment=32k"
    fi
fi
[[ "${timer}" == bench || "${algos}" != *:* ]] ||
    pcoll_die "--timer probe: collprobe takes algorithm names without parameters (--algos '${algos}')"
algos="$(tr -s ' ' <<<"${algos}" | sed 's/^ //; s/ $//')"
[[ " ${algos} " == *" vendor "* ]] || algos="vendor ${algos}"
py="$(pcoll_python)" || pcoll_die "no python3 with h5py (see above)"
workdir="${workdir:-${build}/results/tune-${coll}-$(date +%Y%m%d-%H%M%S)}"
out="${out:-${workdir}/rules.toml}"
mkdir -p "${workdir}"
pcoll_mpirun_env
export OMP_PROC_BIND="${OMP_PROC_BIND:-false}"
cores="$(nproc 2>/dev/null || echo 1)"
logs=() over=()
for P in ${ranks}; do
    (( P > cores )) && over+=("${P}")
    [[ "${P}" =~ ^[0-9]+$ && "${P}" -ge 2 ]] || pcoll_die "--ranks: '${P}' is not a rank count >= 2"
    (( P > cores )) && export OMPI_MCA_mpi_yield_when_idle=1
    for phase in select validate; do
        seed=$([[ ${phase} == select ]] && echo 1 || echo 2)
        pcoll_msg "P=${P} ${phase} (${timer}): ${algos// /,} at ${sizes}, ${trials} trials"
        # The validation run re-times every candidate as well (same code path, fresh launch,
        # another order): the chooser only reads the winner and the vendor from it.
        if [[ "${timer}" == probe ]]; then
            log="${workdir}/${phase}_P${P}.csv"
            # A barrier moves no data: collprobe times it once, without --sizes.
            size_args=(--sizes "${sizes}")
            [[ "${coll}" == barrier ]] && size_args=()
            mpiexec -n "${P}" "${probe}" --coll "${coll}" --entries "${algos// /,}" "${size_args[@]}" \
                --blocks "${trials}" --seed "${seed}" --bw-reps 1 -q --csv "${log}" \
                >"${workdir}/${phase}_P${P}.txt" 2>&1 ||
                { tail -n 20 "${workdir}/${phase}_P${P}.txt" >&2; pcoll_die "collprobe failed (P=${P})"; }
        else
            log="${workdir}/${phase}_P${P}.h5"
            # shellcheck disable=SC2086
            mpiexec -n "${P}" "${bench}" --coll "${coll}" --algos "${algos// /,}" --sizes "${sizes}" \
                --trials "${trials}" --warmup "${warmup}" --seed "${seed}" --no-overhead -q \
                --log "${log}" --no-trace-calls >"${workdir}/${phase}_P${P}.txt" 2>&1 ||
                { tail -n 20 "${workdir}/${phase}_P${P}.txt" >&2; pcoll_die "collbench failed (P=${P})"; }
        fi
        logs+=("${log}")
    done
done
mpi="$(mpirun --version 2>/dev/null | head -n1 || echo unknown)"
rev="$(git -C "${root}" rev-parse --short HEAD 2>/dev/null || echo unknown)"
cpu="$(awk -F': ' '/model name/ {print $2; exit}' /proc/cpuinfo 2>/dev/null || echo unknown)"
"${py}" "${here}/lib/tune_rules.py" --coll "${coll}" --out "${out}" --min-speedup "${min_speedup}" \
    --origin "tool=pcoll-tune" --origin "date=$(date -u +%Y-%m-%dT%H:%MZ)" \
    --origin "machine=$(hostname), ${cores} cores, ${cpu}" --origin "mpi=${mpi}" \
    --origin "pcoll=${rev}" --origin "command=${cmdline}" \
    --origin "timer=$([[ ${timer} == probe ]] && echo "probe (collprobe: blocks of back-to-back calls)" || echo "bench (collbench: a barrier before each call)")" \
    --origin "oversubscribed=${over[*]:-none} (P above the ${cores} cores: ranks share cores, Open MPI yields when idle; such rules describe this machine only)" \
    --origin "load=$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo unknown) (1/5/15-min load average at the end)" \
    "${logs[@]}" | tee "${workdir}/report.md"
pcoll_msg "rules: ${out} (use: PCOLL_RULES=${out}; check: pcoll-info --select ${coll} --ranks P --count N --set rules=${out})"
