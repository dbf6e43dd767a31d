#!/usr/bin/env bash
# One unmodified MPI program, in C and in mpi4py (scripts/lib/preload/allreduce_loop.{c,py}: plain
# MPI, no pcoll header), run without and with libpcoll_mpi.so: the program's output, its time
# per MPI_Allreduce for the vendor and pcoll's algorithms, and pcoll's trace of each run showing
# where the calls went.
#   scripts/preload-demo.sh [--ranks P] [--counts "1 8192"] [--algos "ring rabenseifner"]
#                           [--iters N] [--trials T] [--rounds R] [--out DIR] [--no-python]
# Configurations, interleaved in R rounds (rotating order) of T trials of N calls each, untraced;
# then one traced run of each (PCOLL_TRACE), for where the calls went:
#   none      the program as is (the vendor's MPI_Allreduce, no pcoll anywhere)
#   disabled  LD_PRELOAD=libpcoll_mpi.so with PCOLL_DISABLE=1 (pass-through: the preload's cost)
#   vendor    preloaded, PCOLL_ALLREDUCE=vendor (pcoll's vendor path: pcoll's per-call overhead)
#   ALGO      preloaded, PCOLL_ALLREDUCE=ALGO
set -euo pipefail
here="$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd -P)"
# shellcheck source=lib/common.sh
source "${here}/lib/common.sh"
root="$(pcoll_repo_root)"

ranks=4 counts="1 8192" algos="ring rabenseifner" iters=200 trials=5 rounds=3
out="${root}/demo-out/preload" python_too=1
while [[ $# -gt 0 ]]; do
  case "$1" in
    --ranks) ranks="$2"; shift 2 ;;
    --counts) counts="$2"; shift 2 ;;
    --algos) algos="$2"; shift 2 ;;
    --iters) iters="$2"; shift 2 ;;
    --trials) trials="$2"; shift 2 ;;
    --rounds) rounds="$2"; shift 2 ;;
    --out) out="$2"; shift 2 ;;
    --no-python) python_too=0; shift ;;
    -h|--help) sed -n '2,13p' "$0"; exit 0 ;;
    *) pcoll_die "unknown option '$1' (see --help)" ;;
  esac
done

build="${PCOLL_BUILD_DIR:-${root}/build}"
lib="${build}/collectives/libpcoll_mpi.so"
[[ -f "${lib}" ]] || "${here}/build.sh" "${build}" pcoll_mpi
py="$(pcoll_python)"
pcoll_mpirun_env
mkdir -p "${out}"
rm -f "${out}"/*.out "${out}"/*.traced "${out}"/*.h5
mpicc -O2 -o "${out}/allreduce_loop" "${here}/lib/preload/allreduce_loop.c"

programs=(c)
[[ ${python_too} -eq 1 ]] && programs+=(py)
configs=(none disabled vendor ${algos})
run() {  # run PROGRAM COUNT CONFIG ROUND|traced
  local prog="$1" count="$2" cfg="$3" r="$4" name="$1-$2-$3"
  local cmd=("${out}/allreduce_loop") env=() pre=(-x "LD_PRELOAD=${lib}") log="${out}/${name}.out"
  [[ "${prog}" == py ]] && cmd=("${py}" "${here}/lib/preload/allreduce_loop.py")
  case "${cfg}" in
    none) pre=() ;;
    disabled) env=(PCOLL_DISABLE=1) ;;
    *) env=(PCOLL_ALLREDUCE="${cfg}") ;;
  esac
  # The timed rounds run untraced (tracing costs per call); one more run per configuration
  # writes the trace that shows where the calls went, its times not counted.
  if [[ "${r}" == traced ]]; then
    env+=(PCOLL_TRACE="${out}/${name}.h5")
    log="${out}/${name}.traced"
  fi
  env "${env[@]}" mpiexec -n "${ranks}" "${pre[@]}" "${cmd[@]}" "${count}" "${iters}" "${trials}" \
    >>"${log}" 2>&1 || pcoll_die "${name} (round ${r}) failed: see ${log}"
}
for prog in "${programs[@]}"; do
  for count in ${counts}; do
    pcoll_msg "${prog}: count ${count}, ${#configs[@]} configurations x ${rounds} rounds"
    for ((r = 0; r < rounds; ++r)); do
      for ((k = 0; k < ${#configs[@]}; ++k)); do
        run "${prog}" "${count}" "${configs[$(((k + r) % ${#configs[@]}))]}" "${r}"
      done
    done
    for cfg in "${configs[@]}"; do run "${prog}" "${count}" "${cfg}" traced; done
  done
done
"${py}" "${here}/lib/preload_report.py" "${out}" --configs "${configs[*]}" | tee "${out}/report.md"
