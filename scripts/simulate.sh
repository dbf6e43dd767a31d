#!/usr/bin/env bash
# Paper scale in simulation: the CHiArA paper's evaluation (Figs. 6, 7, 9, 11 and the k-means
# case study of Fig. 12) at its rank counts, on SimGrid SMPI models of Polaris-, Fugaku- and
# Aurora-like machines (inputs/platforms/). The real pcoll code runs; the network is simulated.
#
#   scripts/simulate.sh [--quick] [--experiments "fig11 fig6 fig7 fig9 kmeans auto"]
#       [--platforms "polaris fugaku"] [--ranks "64 128 256 512 1024 2048"]
#       [--segments "1 8 64 512 4096"] [--algos "chiara chiara_loglane rabenseifner auto"]
#       [--selectors "mpich ompi"] [--kmeans-ranks "256"] [--oracle-span 3] [--oracle-top N]
#       [--cell-limit MIN]
#       [--jobs N] [--out DIR] [--build DIR]
#       [--list]
# --kmeans-ranks: the k-means cells' rank counts (default: the paper's, 256 and 2048 on the
#   Polaris-like platform, 576 and 2304 on the Fugaku-like one; `none`: no k-means cells with
#   auto).
# auto (not in the default list: run it with --experiments auto): `auto` on the cost model
#   alone (PCOLL_RULES=none, PCOLL_MACHINE=inputs/machines/PLATFORM.toml) against the oracle,
#   the best of every distinct schedule the model considers (every allreduce algorithm and
#   parameter value pcoll-info --select --candidates lists, at any S), and against both
#   selectors; ring and naive at P <= 128 only (P - 1 and P rounds: hours to simulate above),
#   and ring above that where the model ranks it among its 3 fastest at some S. Above
#   P = 512 only the schedules within --oracle-span times (default 3; 0: all) the model's
#   fastest at some S: at P = 64..512 on the three platforms the oracle always was within
#   2.31x, and the schedules far behind are the slowest to simulate. --oracle-top N instead:
#   above P = 512 the model's N fastest at each S (to P = 1024 the oracle was among the model's
#   3 fastest in every cell but one: a sweep at P = 2048 that fits in hours, not a day).
#   Report: OUT/auto-PLATFORM.{txt,csv,png} (scripts/lib/auto_report.py). With it, the k-means
#   cells (--kmeans-ranks) of vendor, chiara and auto on the same description.
#
# Every simulation is one "cell" (one smpirun) whose CSV lands in OUT/cells/; a cell whose CSV
# exists is not run again, so an interrupted sweep resumes where it stopped (delete a CSV to
# redo it; a cell that failed leaves ID.failed there and is not retried until it is deleted).
# --cell-limit MIN stops a collective cell that runs longer (a failure: some schedules with
# many small stages take SimGrid hours at P >= 1024); its marker records the limit, and a later
# run with a larger limit (or none) retries it. Independent cells run in parallel, --jobs at a time (default: the core count).
# Simulated times are deterministic: the same cell gives the same numbers every time.
# At the end scripts/lib/sim_report.py writes the tables (text + CSV) and PNGs into OUT/.
#
# Vendor baselines are SMPI's re-implementations of MPICH's and Open MPI's selection logic
# (--cfg=smpi/coll-selector:mpich|ompi); never SMPI's naive default. pcoll's algorithms run in
# the mpich cells (the selector only changes the barrier before each timed call).
# Network only for the collectives (smpi/simulate-computation:no: neither side is charged for
# reduction arithmetic); k-means is charged its compute time per iteration, measured natively
# here for the same per-rank problem (OUT/kmeans-calibration-DECK.txt).
# The whole script is one { ...; exit; } block: bash parses it before running anything, so editing
# the file during a long sweep cannot break the sweep.
{
set -euo pipefail
here="$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd -P)"
# shellcheck source=lib/common.sh
source "${here}/lib/common.sh"
PCOLL_LOG_TAG="pcoll simulate"
root="$(pcoll_repo_root)"

experiments="fig11 fig6 fig7 fig9 kmeans"
platforms="polaris fugaku"
ranks="64 128 256 512 1024 2048"
segments="1 8 64 512 4096"
algos="chiara chiara_loglane rabenseifner auto"
selectors="mpich ompi"
kmeans_ranks=""  # empty: the paper's (polaris 256 2048, fugaku 576 2304)
oracle_span=3    # auto above P = 512: simulate the schedules within 3x of the model's fastest
oracle_top=0     # ... or (N > 0) the model's N fastest at each S
cell_limit=0     # minutes a collective cell may run (0: no limit)
jobs="$(pcoll_jobs)"
out="${root}/sim-out"
build="${root}/build-smpi"
list_only=0
quick=0
usage() { sed -n '2,42p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; }
while [[ $# -gt 0 ]]; do
    case "$1" in
        --quick) quick=1; shift ;;
        --experiments) experiments="$2"; shift 2 ;;
        --platforms) platforms="$2"; shift 2 ;;
        --ranks) ranks="$2"; shift 2 ;;
        --segments) segments="$2"; shift 2 ;;
        --algos) algos="$2"; shift 2 ;;
        --selectors) selectors="$2"; shift 2 ;;
        --kmeans-ranks) kmeans_ranks="$2"; shift 2 ;;
        --jobs) jobs="$2"; shift 2 ;;
        --oracle-span) oracle_span="$2"; shift 2 ;;
        --oracle-top) oracle_top="$2"; shift 2 ;;
        --cell-limit) cell_limit="$2"; shift 2 ;;
        --out) out="$2"; shift 2 ;;
        --build) build="$2"; shift 2 ;;
        --list) list_only=1; shift ;;
        -h|--help) usage; exit 0 ;;
        *) pcoll_die "unknown argument: $1 (see --help)" ;;
    esac
done
if [[ ${quick} -eq 1 ]]; then
    # A smoke run of a few minutes: every experiment, small P.
    ranks="64 128"; segments="8 512"
fi
[[ "${jobs}" =~ ^[1-9][0-9]*$ ]] || pcoll_die "--jobs must be a positive integer, got '${jobs}'"
[[ "${cell_limit}" =~ ^[0-9]+$ ]] || pcoll_die "--cell-limit must be whole minutes >= 0 (0: none), got '${cell_limit}'"
# A marker left by a cell that ran out of a shorter --cell-limit than this run's is removed, so
# that the cell (or its schedules) is retried; a crash's marker stays. --list changes nothing.
forget_short_limits() {
    local f l
    ((list_only == 0)) || return 0
    for f in "$@"; do
        [[ -e "${f}" ]] || continue
        l="$(sed -n 's/^limit: //p' "${f}")"
        [[ -n "${l}" ]] && { ((cell_limit == 0)) || ((cell_limit > l)); } || continue
        pcoll_msg "$(basename "${f}" .failed): stopped at --cell-limit ${l} min before; retried"
        rm -f "${f}"
    done
}
[[ "${oracle_span}" =~ ^[0-9]+([.][0-9]+)?$ ]] || pcoll_die "--oracle-span must be a number >= 0 (0: every schedule), got '${oracle_span}'"
[[ "${oracle_top}" =~ ^[0-9]+$ ]] || pcoll_die "--oracle-top must be a whole number >= 0 (0: use --oracle-span), got '${oracle_top}'"
for p in ${platforms}; do
    [[ -f "${root}/inputs/platforms/${p}.xml" ]] ||
        pcoll_die "no platform '${p}' (inputs/platforms/: $(cd "${root}/inputs/platforms" && ls -- *.xml | sed 's/\.xml//' | tr '\n' ' '))"
done
for a in ${algos}; do
    [[ "${a}" =~ ^[a-z_]+$ ]] || pcoll_die "bad algorithm name '${a}'"
done

# Ranks per node of a platform: the core count of its hosts (one rank per core).
platform_rpn() { "${here}/lib/sim_hostfile.sh" "${root}/inputs/platforms/$1.xml" 1024 | sed 's/.*://;q'; }
divisors_upto() {  # divisors of $1 in [2, $2]
    local P="$1" max="$2" d
    for ((d = 2; d <= max && d <= P; d++)); do ((P % d == 0)) && printf '%s ' "${d}"; done
}

# ---- the cells --------------------------------------------------------------------------------
# One line per cell: id <TAB> kind <TAB> platform <TAB> P <TAB> selector <TAB> env <TAB> args
# <TAB> signature (possibly empty)
cells=()
# add_cell ID KIND PLATFORM P SELECTOR ENV ARGS [SIGNATURE]: a done cell (cells/ID.csv) is
# reused; with a SIGNATURE (what its result depends on beyond its arguments, as auto's picks),
# only while cells/ID.sig says the same.
add_cell() { cells+=("$1"$'\t'"$2"$'\t'"$3"$'\t'"$4"$'\t'"$5"$'\t'"$6"$'\t'"$7"$'\t'"${8:-}"); }
for exp in ${experiments}; do
    case "${exp}" in
        fig11)
            # One simulation per (platform, P, selector, group of algorithms), every S in it:
            # starting P simulated ranks costs more wall time than a few calls (SMPI's start-up
            # and communicator set-up grow faster than P^2), so the sizes share one start.
            for p in ${platforms}; do
                for P in ${ranks}; do
                    for sel in ${selectors}; do
                        if [[ "${sel}" != mpich ]]; then
                            add_cell "fig11-${p}-P${P}-${sel}-vendor" bench "${p}" "${P}" "${sel}" "-" \
                                "--algos vendor --per-rank-segment ${segments// /,}"
                            continue
                        fi
                        a="vendor,${algos// /,}"
                        [[ "${p}" == polaris ]] && a="${a},chiara_composed"  # Fig. 9
                        ((P <= 128)) && a="${a},ring"  # P-1 rounds: affordable only here
                        add_cell "fig11-${p}-P${P}-${sel}-pcoll" bench "${p}" "${P}" "${sel}" "-" \
                            "--algos ${a} --per-rank-segment ${segments// /,}"
                    done
                done
            done ;;
        fig6)  # chiara vs batch size b, every divisor up to 2*b_max (beyond b_max: spills);
               # all b in one simulation (collbench's NAME:param=value entries)
            for P in 256 512 2048; do  # 512: the rule picks b = 16 < b_max = 32 there
                [[ ${quick} -eq 1 ]] && P=64
                rpn="$(platform_rpn polaris)" v=""
                for b in $(divisors_upto "${P}" $((2 * rpn))); do v="${v:+${v},}chiara:chiara_batch=${b}"; done
                add_cell "fig6-polaris-P${P}" bench polaris "${P}" mpich "-" "--algos ${v} --per-rank-segment 8,512"
                [[ ${quick} -eq 1 ]] && break
            done ;;
        fig7)  # radix sweeps at one P (the paper's Fig. 7 style), b = the rule's choice
            P=256; [[ ${quick} -eq 1 ]] && P=64
            v=""
            for k in 2 3 4 8 15; do v="${v:+${v},}chiara:chiara_kag=${k}"; done
            for k in 2 4 8 16; do v="${v},chiara:chiara_krs=${k}"; done
            add_cell "fig7-polaris-P${P}" bench polaris "${P}" mpich "-" "--algos ${v} --per-rank-segment 8,512,4096" ;;
        fig9) ;;  # chiara_composed rides along in the Polaris fig11 cells
        kmeans)
            for spec in "polaris polaris 256 2048" "fugaku fugaku 576 2304"; do
                read -r deck p P1 P2 <<<"${spec}"
                [[ " ${platforms} " == *" ${p} "* ]] || continue
                for P in ${kmeans_ranks:-${P1} ${P2}}; do
                    [[ ${quick} -eq 1 ]] && P=64
                    # auto on the platform's machine description (inputs/machines/), as a
                    # user who calibrated the machine would run it.
                    kenv="-"
                    [[ -f "${root}/inputs/machines/${p}.toml" ]] && kenv="PCOLL_MACHINE=${root}/inputs/machines/${p}.toml"
                    for sel in ${selectors}; do
                        a="vendor"
                        [[ "${sel}" == mpich ]] && a="vendor,${algos// /,}"
                        add_cell "kmeans-${deck}-P${P}-${sel}" kmeans "${p}" "${P}" "${sel}" "${kenv}" \
                            "--deck ${deck} --allreduce ${a}"
                    done
                    [[ ${quick} -eq 1 ]] && break
                done
            done ;;
        auto)
            "${here}/build.sh" "${root}/build" pcoll-info >/dev/null
            info="${root}/build/collectives/pcoll-info"
            mkdir -p "${out}/auto-candidates"
            for p in ${platforms}; do
                machine="${root}/inputs/machines/${p}.toml"
                [[ -f "${machine}" ]] || pcoll_die "no machine description ${machine} (scripts/pcoll-calibrate.sh --smpi)"
                rpn="$(platform_rpn "${p}")"
                for P in ${ranks}; do
                    # The model's distinct candidates at every S, as the simulated ranks see
                    # their nodes (consecutive blocks of rpn, the last one possibly smaller).
                    cand="${out}/auto-candidates/${p}-P${P}.tsv"
                    : >"${cand}.tmp"
                    for S in ${segments}; do
                        "${info}" --select allreduce --ranks "${P}" --count $((S * P)) --ranks-per-node "${rpn}" \
                            --set rules=none --set "machine=${machine}" --candidates |
                            sed "s/^/${S}\t/" >>"${cand}.tmp"
                    done
                    mv "${cand}.tmp" "${cand}"
                    # Schedules simulated at this (platform, P) by any earlier run are not
                    # simulated again (a schedule's simulated time does not depend on the model;
                    # a new model reorders or extends the candidates).
                    # So are those of a group that failed (its .failed marker names them): SimGrid
                    # crashed (delete the marker to retry), or the group ran out of a --cell-limit
                    # at least as long as this run's (a shorter one's marker is removed here).
                    # (No such file yet: nothing; grep finding nothing is no error either.)
                    forget_short_limits "${out}/cells/auto-${p}-P${P}-"*.failed
                    have=" $({ awk -F, 'FNR > 1 && $5 != "auto" { print $5 }' /dev/null \
                        "${out}/cells/auto-${p}-P${P}-"*.csv 2>/dev/null || true
                        sed -n 's/^schedules: //p' /dev/null "${out}/cells/auto-${p}-P${P}-"*.failed 2>/dev/null |
                            tr ',' '\n' | grep -vx vendor || true
                    } | sort -u | paste -sd' ') "
                    # Above P = 512 (--oracle-span X): only the schedules the model puts within
                    # X times its fastest at some S (at P = 64..512 the oracle always was within
                    # 2.31x; the ones far behind are also the slowest to simulate).
                    span="${oracle_span}" top="${oracle_top}"; ((P <= 512)) && span=0 top=0
                    mapfile -t specs < <(awk -F'\t' -v P="${P}" -v span="${span}" -v top="${top}" -v have="${have}" '
                        { s[NR] = $1; n[NR] = $2; t[NR] = $3; k[NR] = ++rank[$1]
                          if (!($1 in best) || $3 < best[$1]) best[$1] = $3 }
                        END { for (i = 1; i <= NR; i++) {
                                  if (top > 0 && k[i] > top) continue
                                  if (top == 0 && span > 0 && t[i] > span * best[s[i]]) continue
                                  if (seen[n[i]]++ || (P > 128 && (n[i] == "ring" || n[i] == "naive"))) continue
                                  if (index(have, " " n[i] " ")) continue
                                  print n[i] } }' "${cand}" | sort)
                    [[ "${have}" == *" vendor "* ]] || specs=(vendor "${specs[@]}")
                    # In groups of 3 (SimGrid's solver stops or crashes on some schedules at
                    # P >= 256, and a failed group loses only its own; the report lists what was
                    # not simulated), each named by its schedules.
                    for ((g = 0; g * 3 < ${#specs[@]}; g++)); do
                        a="$(printf '%s\n' "${specs[@]:g*3:3}" | paste -sd,)"
                        add_cell "auto-${p}-P${P}-set$(printf '%s' "${a}" | cksum | cut -d' ' -f1)" bench "${p}" "${P}" mpich "-" \
                            "--algos ${a} --per-rank-segment ${segments// /,}"
                    done
                    # Above P = 128, ring (P - 1 rounds each way) only where the model ranks it
                    # among its 3 fastest at some S, so that the oracle holds every pick.
                    if ((P > 128)) && [[ "${have}" != *" ring "* ]] &&
                        awk -F'\t' '{n[$1]++} n[$1] <= 3 && $2 == "ring" {f = 1} END {exit !f}' "${cand}"; then
                        add_cell "auto-${p}-P${P}-ring" bench "${p}" "${P}" mpich "-" \
                            "--algos ring --per-rank-segment ${segments// /,}"
                    fi
                    # auto apart, after a warm-up call: its first call of a shape broadcasts
                    # rank 0's model choice (a 512-byte MPI_Bcast), which the cached calls an
                    # application makes afterwards do not pay. Re-run when its picks change.
                    picks="picks: $(awk -F'\t' '!($1 in p) { p[$1] = $2; printf "%s=%s ", $1, $2 }' "${cand}")"
                    add_cell "auto-${p}-P${P}-auto" bench "${p}" "${P}" mpich \
                        "PCOLL_RULES=none PCOLL_MACHINE=${machine}" \
                        "--algos auto --per-rank-segment ${segments// /,} --warmup 1" "${picks}"
                    # auto again under the ompi selector: a call's simulated time depends on
                    # the vendor collectives around it (the barrier before it leaves the ranks
                    # skewed differently: pcoll's Rabenseifner after the ompi selector's barrier
                    # is the ompi selector's allreduce to the nanosecond, and 5% slower after
                    # the mpich selector's at P = 256, 16 KiB), so each selector is compared
                    # with auto run under that same selector.
                    add_cell "auto-${p}-P${P}-auto-ompi" bench "${p}" "${P}" ompi \
                        "PCOLL_RULES=none PCOLL_MACHINE=${machine}" \
                        "--algos auto --per-rank-segment ${segments// /,} --warmup 1" "${picks}"
                    add_cell "fig11-${p}-P${P}-ompi-vendor" bench "${p}" "${P}" ompi "-" \
                        "--algos vendor --per-rank-segment ${segments// /,}"
                done
                # The k-means case study with auto beside chiara (--kmeans-ranks, default the
                # paper's), auto on the same machine description, vendor = the mpich selector.
                for spec in "polaris polaris 256 2048" "fugaku fugaku 576 2304"; do
                    read -r deck kp P1 P2 <<<"${spec}"
                    [[ "${kp}" == "${p}" ]] || continue
                    [[ "${kmeans_ranks}" == none ]] && continue
                    # auto's picks for the deck's three allreduces (counts, sums, convergence):
                    # the cell is re-run when they change.
                    kd="$(awk -F'[ =]+' '$1 == "dim" { d = $2 } $1 == "clusters" { k = $2 } END { print k, k * d }' \
                        "${root}/inputs/kmeans/${deck}.toml")"
                    for P in ${kmeans_ranks:-${P1} ${P2}}; do
                        picks=""
                        for shape in "${kd% *} int" "${kd#* } double" "1 int"; do
                            picks="${picks}$("${info}" --select allreduce --ranks "${P}" --count "${shape% *}" \
                                --type "${shape#* }" --ranks-per-node "${rpn}" --set rules=none \
                                --set "machine=${machine}" | sed -n 's/^PCOLL_ALLREDUCE = auto -> //p'); "
                        done
                        add_cell "kmeans-${deck}-P${P}-mpich-auto" kmeans "${p}" "${P}" mpich \
                            "PCOLL_RULES=none PCOLL_MACHINE=${machine}" "--deck ${deck} --allreduce vendor,chiara,auto" \
                            "picks: ${picks}"
                    done
                done
            done ;;
        *) pcoll_die "unknown experiment '${exp}' (fig11 fig6 fig7 fig9 kmeans auto)" ;;
    esac
done
[[ ${#cells[@]} -gt 0 ]] || pcoll_die "nothing to simulate"
# A cell two experiments share (the vendor baselines) runs once.
mapfile -t cells < <(printf '%s\n' "${cells[@]}" | awk -F'\t' '!seen[$1]++')
# Small P first (stable): results of the cheap cells arrive early, the P = 2048 ones last.
mapfile -t cells < <(printf '%s\n' "${cells[@]}" | sort -t $'\t' -k4,4n -s)

if [[ ${list_only} -eq 1 ]]; then
    printf '%s\n' "${cells[@]}" | cut -f1,2,3,4,5,6,7 | column -t -s $'\t'
    exit 0
fi

# ---- build, calibrate ---------------------------------------------------------------------------
# Only the programs the cells run: collbench for the collective benchmarks, kmeans for k-means.
smpi_targets=()
printf '%s\n' "${cells[@]}" | cut -f2 | grep -qx bench && smpi_targets+=(collbench)
printf '%s\n' "${cells[@]}" | cut -f2 | grep -qx kmeans && smpi_targets+=(kmeans)
"${here}/build-smpi.sh" "${build}" "${smpi_targets[@]}"
command -v smpirun >/dev/null || pcoll_die "smpirun not found (Debian: libsimgrid-dev)"
mkdir -p "${out}/cells" "${out}/logs" "${out}/hostfiles"

calibrate_kmeans() {  # seconds of computation per iteration and rank, measured natively
    local deck="$1" f="${out}/kmeans-calibration-$1.txt"
    if [[ ! -s "${f}" ]]; then
        "${here}/build.sh" "${root}/build" kmeans
        pcoll_mpirun_env
        local py; py="$(pcoll_python)" || pcoll_die "calibration reads an HDF5 file: needs Debian's python3 with h5py"
        pcoll_msg "calibrating k-means compute for deck ${deck}: 1 rank, 1 thread, real kernels"
        OMP_NUM_THREADS=1 OMP_PROC_BIND=false mpiexec -n 1 "${root}/build/apps/kmeans/kmeans" --deck "${deck}" \
            --allreduce vendor --runs 5 --warmup 1 --fixed-iterations -q --output "${f}.h5" >/dev/null
        # The median of the per-iteration compute times of the timed runs. One iteration (about
        # a millisecond) is shorter than a scheduler time slice, so an iteration disturbed by
        # another process is an outlier rather than a shift of all of them: the median is the
        # undisturbed kernel time even on a busy machine (per-run sums were not: 1.7x high).
        "${py}" - "${f}.h5" >"${f}.tmp" <<'PY'
import statistics, sys
import h5py
with h5py.File(sys.argv[1], "r") as f:
    v = sorted(t for g in f["runs"].values() if not g.attrs["warmup"] for t in g["phase_times"][:, 0, 0])
print("%.9g" % statistics.median(v))
print("# median of %d iterations' compute on 1 rank, 1 thread; min %.6g, p90 %.6g s"
      % (len(v), v[0], v[int(0.9 * (len(v) - 1))]))
PY
        mv "${f}.tmp" "${f}"
        pcoll_msg "k-means ${deck}: $(head -n 1 "${f}") s of compute per iteration and rank (${f})"
    fi
    head -n 1 "${f}"
}

# ---- run the cells ------------------------------------------------------------------------------
weight() { echo $(($2 * $2 / 64 + 1)); }  # cost grows about as P^2 (flows x events)
run_cell() {  # id kind platform P selector env args
    local id="$1" kind="$2" p="$3" P="$4" sel="$5" envs="$6" args="$7"
    local hf="${out}/hostfiles/${p}-${P}" csv="${out}/cells/${id}.csv" log="${out}/logs/${id}.log"
    # Written whole and renamed into place: with --jobs > 1 another cell of the same platform
    # and P may read it meanwhile (a half-written file made smpirun skip its host:count unrolling).
    # (The name is fixed first: a redirection's word is expanded in the forked child, whose
    # BASHPID differs.)
    if [[ ! -s "${hf}" ]]; then
        local tmp_hf="${hf}.${BASHPID}"
        "${here}/lib/sim_hostfile.sh" "${root}/inputs/platforms/${p}.xml" "${P}" >"${tmp_hf}"
        mv -f "${tmp_hf}" "${hf}"
    fi
    cd "${out}"  # smpirun leaves its temporary files in the working directory
    local cmd=(smpirun -np "${P}" -platform "${root}/inputs/platforms/${p}.xml" -hostfile "${hf}"
        --cfg=smpi/simulate-computation:no --cfg=smpi/lat-factor:0:1 --cfg=smpi/bw-factor:0:1
        --cfg=smpi/coll-selector:"${sel}" --cfg=smpi/privatization:1 --log=root.thres:warning
        # Shared blocks fold onto one file in pieces of this size: with SMPI's 1 MiB default,
        # P = 1024 ranks x 32 MiB buffers exceed the kernel's 65530 mappings per process.
        --cfg=smpi/shared-malloc-blocksize:67108864)
    local env_list=(PCOLL_SIM_SHARED_BYTES=1m PCOLL_FALLBACK=error OMP_NUM_THREADS=1 OMP_PROC_BIND=false)
    if [[ "${envs}" != "-" ]]; then read -r -a extra_env <<<"${envs}"; env_list+=("${extra_env[@]}"); fi
    # shellcheck disable=SC2086  # args is a word list by construction
    if [[ "${kind}" == bench ]]; then
        # One timed call, no warm-up: simulated time is deterministic and planning costs no
        # simulated time; collbench's configuration query and the barrier before the call set
        # up pcoll's and SMPI's communicator state (P = 512: warm-up 0 and 1, trials 1 and 2
        # give identical times for vendor, chiara and rabenseifner).
        local warm="--warmup 0"
        [[ " ${args} " == *" --warmup "* ]] && warm=""  # the cell sets its own
        local lim=() rc=0
        ((cell_limit > 0)) && lim=(timeout "$((cell_limit * 60))")
        env "${env_list[@]}" "${lim[@]}" "${cmd[@]}" "${build}/apps/collbench/collbench" ${args} --trials 1 ${warm} \
            --no-overhead -q --csv "${csv}.tmp" >"${log}" 2>&1 || rc=$?
        if ((rc == 124)); then
            echo "# stopped after --cell-limit ${cell_limit} min" >>"${log}"
            return 124
        fi
        if ((rc != 0)); then
            # SimGrid's max-min solver can stop on a rounding check at thousands of concurrent
            # flows ("Cannot saturate more a constraint"); retry that cell with another
            # precision, and say so in its log (other cells keep the default).
            # The finer precision can stop the same way on another constraint (Aurora-like,
            # P = 512: usage 1.2e-9 against 1e-9), and the solver can also crash
            # (MaxMin::do_solve, Aurora-like P = 256): then a coarser one, 1e-7, once more.
            local prec ok=0
            for prec in 1e-9 1e-7; do
                grep -qE "Cannot saturate more a constraint|^Segmentation fault" "${log}" || return 1
                mv "${log}" "${log}.before-${prec}"
                if env "${env_list[@]}" "${lim[@]}" "${cmd[@]}" --cfg=maxmin/precision:${prec} "${build}/apps/collbench/collbench" \
                    ${args} --trials 1 ${warm} --no-overhead -q --csv "${csv}.tmp" >"${log}" 2>&1; then
                    echo "# retried with --cfg=maxmin/precision:${prec} after a max-min rounding stop" >>"${log}"
                    ok=1
                    break
                fi
            done
            ((ok == 1)) || return 1
        fi
    else
        local deck="${args#--deck }"; deck="${deck%% *}"
        local comp; comp="$(head -n 1 "${out}/kmeans-calibration-${deck}.txt")"
        # Deterministic simulation: every iteration costs the same, so one short run of 2
        # iterations gives the per-iteration time exactly (P = 256 and 576: a warm-up run and
        # the timed run gave the same times to 1e-12 s for every algorithm).
        env "${env_list[@]}" "${cmd[@]}" "${build}/apps/kmeans/kmeans" ${args} --iterations 2 --fixed-iterations \
            --runs 1 --warmup 0 -q --sim-compute-per-iteration "${comp}" --csv "${csv}.tmp" >"${log}" 2>&1
    fi
    mv "${csv}.tmp" "${csv}"
}

todo=() total_w=0 todo_w=0
for c in "${cells[@]}"; do
    IFS=$'\t' read -r id kind p P sel envs args sig <<<"${c}"
    w="$(weight "${kind}" "${P}")"; total_w=$((total_w + w))
    if [[ -s "${out}/cells/${id}.csv" ]]; then
        [[ -z "${sig}" || "$(cat "${out}/cells/${id}.sig" 2>/dev/null)" == "${sig}" ]] && continue
        pcoll_msg "${id}: re-run (${sig%% *} changed)"
        rm -f "${out}/cells/${id}.csv" "${out}/cells/${id}.failed"
    fi
    # A cell that failed at every precision (SimGrid's solver) fails again: not retried until
    # its .failed marker is deleted.
    forget_short_limits "${out}/cells/${id}.failed"
    [[ -e "${out}/cells/${id}.failed" ]] && { n_failed_before=$((${n_failed_before:-0} + 1)); continue; }
    todo+=("${c}"); todo_w=$((todo_w + w))
done
pcoll_msg "${#cells[@]} cells, ${#todo[@]} to run (the rest are done: resuming), ${jobs} at a time; output in ${out}"
[[ -n "${n_failed_before:-}" ]] &&
    pcoll_msg "${n_failed_before} cell(s) failed in an earlier run and are not retried (delete ${out}/cells/ID.failed to retry)"
for c in "${todo[@]}"; do
    IFS=$'\t' read -r id kind p P sel envs args sig <<<"${c}"
    if [[ "${kind}" == kmeans ]]; then deck="${args#--deck }"; calibrate_kmeans "${deck%% *}" >/dev/null; fi
done

start=$(date +%s) done_w=0 n_done=0 failed=0
declare -A pid_cell=() pid_start=()
finish_one() {
    local pid rc=0
    wait -n -p pid || rc=$?
    local c="${pid_cell[${pid}]}"
    IFS=$'\t' read -r id kind p P sel envs args sig <<<"${c}"
    local now; now=$(date +%s)
    n_done=$((n_done + 1)); done_w=$((done_w + $(weight "${kind}" "${P}")))
    local el=$((now - start)) rem="?"
    ((done_w > 0)) && rem=$(((todo_w - done_w) * el / done_w))
    if ((rc != 0)); then
        failed=$((failed + 1))
        pcoll_msg "[${n_done}/${#todo[@]}] FAILED ${id} (exit ${rc}); log: ${out}/logs/${id}.log"
        tail -n 5 "${out}/logs/${id}.log" >&2 || true
        local algos=""
        [[ " ${args} " == *" --algos "* ]] && { algos="${args#*--algos }"; algos="${algos%% *}"; }
        { echo "exit ${rc} at $(date -u +%FT%TZ); the end of its log:"; tail -n 5 "${out}/logs/${id}.log"
          [[ -n "${algos}" ]] && echo "schedules: ${algos}"
          ((rc == 124)) && echo "limit: ${cell_limit}"; } \
            >"${out}/cells/${id}.failed" 2>/dev/null || true
    else
        pcoll_msg "[${n_done}/${#todo[@]}] ${id}: $((now - pid_start[${pid}])) s; elapsed ${el} s, about ${rem} s to go"
    fi
    unset "pid_cell[${pid}]"
}
for c in "${todo[@]}"; do
    while ((${#pid_cell[@]} >= jobs)); do finish_one; done
    IFS=$'\t' read -r id kind p P sel envs args sig <<<"${c}"
    { run_cell "${id}" "${kind}" "${p}" "${P}" "${sel}" "${envs}" "${args}" &&
        if [[ -n "${sig}" ]]; then printf '%s\n' "${sig}" >"${out}/cells/${id}.sig"; fi; } &
    pid_cell[$!]="${c}"; pid_start[$!]=$(date +%s)
done
while ((${#pid_cell[@]} > 0)); do finish_one; done
if ((failed == 0)); then
    pcoll_msg "all cells done in $(($(date +%s) - start)) s"
else
    pcoll_msg "${failed} cell(s) failed (rerun the same command to retry them); the reports follow without them"
fi

py="$(pcoll_python)" || pcoll_die "the report needs Debian's python3 with matplotlib (see above)"
"${py}" "${here}/lib/sim_report.py" "${out}" --paper "${root}/inputs/kmeans"
if [[ " ${experiments} " == *" auto "* ]]; then
    for p in ${platforms}; do "${py}" "${here}/lib/auto_report.py" "${out}" "${p}"; done
fi
((failed == 0)) || exit 1
exit
}
