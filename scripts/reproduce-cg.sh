#!/usr/bin/env bash
# The Krylov case study: for each rank count and solver, runs apps/cg on a deck with each
# allreduce algorithm (warm-ups, then timed runs, algorithms in rotating order within one
# launch), then prints the table (iterations, time per iteration with its spread, allreduce
# share, speedup over vendor with a bootstrap interval and whether it exceeds the noise) and
# writes a PNG of the time split per iteration.
#   scripts/reproduce-cg.sh [--ranks "2 4"] [--deck medium] [--runs 5] [--warmup 1]
#       [--algos "vendor ring recursive_doubling chiara auto"] [--solver cg|cg1|pipecg|all]
#       [--threads 1] [--refine N] [--out DIR] [--no-build]
#       [--smpi PLATFORM [--iterations 5]]
# pipecg runs twice, each with every algorithm: with --overlap false (blocking PCOLL_Allreduce
# before the stencil) and with --overlap true (PCOLL_Iallreduce, the same algorithm's plan as a
# nonblocking request, overlapping the halo exchange and the stencil): the second table's
# allreduce column is the part the stencil did not hide. --refine N
# adds the refinement table (h halved N times) at the first P. Ranks above the core count are
# oversubscribed (fine for correctness and ratios, not absolute times). On a cluster,
# PCOLL_LAUNCHER="srun" replaces mpiexec.
# --smpi PLATFORM (polaris, aurora, fugaku: inputs/platforms/) runs the same launches in the SMPI
# build under smpirun instead (default --ranks "256 512", deck weak, 1 warm-up + 1 run, each
# solve fixed to --iterations iterations): the stencil and vector compute per local point is
# measured natively first (1 rank, 1 thread, the deck's block) and charged to every simulated
# iteration; the allreduces and halo messages are simulated on the platform's network. Simulated
# times are deterministic: one timed run, no spread. Under SMPI each MPI_Test costs
# smpi/test = 1e-7 s of simulated time (about a real one's, and not grown on repetition:
# smpi/grow-injected-times:no): pcoll's waits poll their plans' requests with tests, which at
# SimGrid's default (1e-4 s, doubling) would swamp the collective, and at 0 would never let
# simulated time advance. The overlapped run leaves out vendor there (SimGrid 3.32's own
# MPI_Iallreduce segfaults at P = 256).
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
solver=all threads="${OMP_NUM_THREADS:-1}" refine=0 out="" do_build=1 smpi="" iterations=5
ranks_set=0 deck_set=0
while [[ $# -gt 0 ]]; do
    case "$1" in
        --ranks) ranks="$2"; ranks_set=1; shift 2 ;;
        --deck) deck="$2"; deck_set=1; shift 2 ;;
        --smpi) smpi="$2"; shift 2 ;;
        --iterations) iterations="$2"; shift 2 ;;
        --runs) runs="$2"; shift 2 ;;
        --warmup) warmup="$2"; shift 2 ;;
        --algos) algos="$2"; shift 2 ;;
        --solver) solver="$2"; shift 2 ;;
        --threads) threads="$2"; shift 2 ;;
        --refine) refine="$2"; shift 2 ;;
        --out) out="$2"; shift 2 ;;
        --no-build) do_build=0; shift ;;
        -h|--help) sed -n '2,24p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) pcoll_die "unknown argument '$1' (see --help)" ;;
    esac
done
if [[ -n "${smpi}" ]]; then
    (( ranks_set )) || ranks="256 512"
    (( deck_set )) || deck=weak
    [[ -f "${root}/inputs/platforms/${smpi}.xml" ]] ||
        pcoll_die "--smpi '${smpi}': no inputs/platforms/${smpi}.xml (have: $(cd "${root}/inputs/platforms" && ls -- *.xml | sed 's/\.xml//' | tr '\n' ' '))"
    [[ "${iterations}" =~ ^[1-9][0-9]*$ ]] || pcoll_die "--iterations takes a positive integer"
    runs=1 warmup=1 threads=1 refine=0
fi
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
smpi_build="${PCOLL_SMPI_BUILD_DIR:-${root}/build-smpi}"
if [[ -n "${smpi}" ]]; then
    if [[ ${do_build} -eq 1 || ! -x "${smpi_build}/apps/cg/cg" ]]; then
        "${here}/build-smpi.sh" "${smpi_build}"
    fi
    command -v smpirun >/dev/null || pcoll_die "smpirun not found (Debian: libsimgrid-dev)"
fi

out="${out:-${build}/results/cg-${deck_name}${smpi:+-${smpi}}-$(date +%Y%m%d-%H%M%S)}"
mkdir -p "${out}"
out="$(cd -- "${out}" && pwd -P)"  # absolute: the simulations run inside it
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
    if [[ -n "${smpi}" ]]; then
        sim_launch "${P}" "${base}" "$@"
    else
        # shellcheck disable=SC2086
        ${launcher} -n "${P}" "${cg}" --deck "${deck_file}" --runs "${runs}" --warmup "${warmup}" \
            --csv "${base}.csv" --output "${base}.h5" "$@" >"${base}.log" 2>&1 ||
            { tail -n 30 "${base}.log" >&2; pcoll_die "cg failed at P=${P} (log: ${base}.log)"; }
    fi
    grep -A12 '^summary' "${base}.log" | sed 's/^/  /' >&2
    csvs+=("${base}.csv")
}
# Simulation: per-point compute rates of one solver, measured natively on one rank with the
# block a simulated rank owns (weak decks; else the deck's grid), median over iterations.
calibrate() {
    local s="$1" f="${out}/calibration-${1}.txt"
    if [[ ! -s "${f}" ]]; then
        OMP_NUM_THREADS=1 mpiexec -n 1 "${cg}" --deck "${deck_file}" --solver "${s}" --runs 3 \
            --warmup 1 --allreduce vendor -q --output "${f}.h5" >"${f}.log" 2>&1 ||
            { tail -n 20 "${f}.log" >&2; pcoll_die "calibration of ${s} failed"; }
        "${py}" - "${f}.h5" >"${f}" <<'PY'
import statistics, sys
import h5py
with h5py.File(sys.argv[1], "r") as f:
    phases = f.attrs["phases"].decode().split(",")
    points = int(f.attrs["nx"]) * int(f.attrs["ny"]) * int(f.attrs["nz"])
    runs = [g for g in f["runs"].values() if not g.attrs["warmup"]]
    rate = {}
    for name in ("stencil", "vector"):
        k = phases.index(name)
        rate[name] = statistics.median(t for g in runs for t in g["phase_times"][:, 0, k]) / points
print("%.6g %.6g" % (rate["stencil"], rate["vector"]))
print("# seconds per point and iteration: stencil, vector (median over iterations; 1 rank, 1 thread, %d points)" % points)
PY
        pcoll_msg "calibrated ${s}: $(head -n 1 "${f}") s per point (stencil, vector)"
    fi
    head -n 1 "${f}"
}
sim_launch() {
    local P="$1" base="$2" s="" a prev=""
    shift 2
    for a in "$@"; do [[ "${prev:-}" == --solver ]] && s="${a}"; prev="${a}"; done
    local rates; read -r -a rates <<<"$(calibrate "${s}")"
    local hf="${out}/hosts-${smpi}-${P}"
    [[ -s "${hf}" ]] || "${here}/lib/sim_hostfile.sh" "${root}/inputs/platforms/${smpi}.xml" "${P}" >"${hf}"
    # The native runs' block per rank is the deck's (weak) or its whole grid; the simulated one
    # charges per point, so a strong-scaling deck is charged its smaller blocks correctly.
    (cd "${out}" && env OMP_NUM_THREADS=1 OMP_PROC_BIND=false PCOLL_FALLBACK=error \
        smpirun -np "${P}" -platform "${root}/inputs/platforms/${smpi}.xml" -hostfile "${hf}" \
        --cfg=smpi/simulate-computation:no --cfg=smpi/lat-factor:0:1 --cfg=smpi/bw-factor:0:1 \
        --cfg=smpi/coll-selector:mpich --cfg=smpi/privatization:1 --cfg=smpi/test:1e-7 \
        --cfg=smpi/grow-injected-times:no --log=root.thres:warning \
        "${smpi_build}/apps/cg/cg" --deck "${deck_file}" --runs 1 --warmup 1 \
        --max-iterations "${iterations}" --tol 1e-300 --sim-stencil-per-point "${rates[0]}" \
        --sim-vector-per-point "${rates[1]}" --csv "${base}.csv" "$@") >"${base}.log" 2>&1 ||
        { tail -n 30 "${base}.log" >&2; pcoll_die "simulated cg failed at P=${P} (log: ${base}.log)"; }
}
first=1
for P in ${ranks}; do
    if [[ -z "${smpi}" ]] && (( P * threads > cores )); then
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
            ov_algos="${algos}"
            if [[ -n "${smpi}" ]]; then
                # SimGrid 3.32's own MPI_Iallreduce (the vendor's here) crashes at P = 256.
                ov_algos="$(tr ' ' '\n' <<<"${algos}" | grep -vx vendor | tr '\n' ' ')"
                ov_algos="${ov_algos% }"
                pcoll_msg "P=${P}: simulation: the overlapped run leaves out vendor" \
                    "(SimGrid 3.32's MPI_Iallreduce segfaults at P = 256)"
            fi
            pcoll_msg "P=${P}: pipecg with PCOLL_Iallreduce overlapping the stencil"
            [[ -z "${ov_algos}" ]] ||
                launch "${P}" "${base}_overlap" --solver pipecg --overlap true --allreduce "${ov_algos// /,}"
        else
            launch "${P}" "${base}" --solver "${s}" --allreduce "${algos// /,}" "${extra[@]}"
        fi
        if [[ ${#extra[@]} -gt 0 ]]; then
            sed -n '/^refinement/,$p' "${base}.log" | tee "${out}/refinement.txt"
        fi
    done
done

echo
if [[ -n "${smpi}" ]]; then
    echo "CG case study, deck ${deck_name}, simulated (SMPI, ${smpi} platform, mpich selector for vendor; ${iterations} iterations per solve, compute charged from the native calibration in ${out}/calibration-*.txt)"
else
    echo "CG case study, deck ${deck_name}, $(hostname), ${cores} cores"
fi
"${py}" "${here}/lib/plot_cg.py" "${csvs[@]}" -o "${out}/cg-split.png" | tee "${out}/table.txt"
if [[ -f "${out}/refinement.txt" ]]; then
    tee -a "${out}/table.txt" <"${out}/refinement.txt"
fi
echo "results: ${out} (per-P CSV, HDF5 per-iteration phase times, logs)"
