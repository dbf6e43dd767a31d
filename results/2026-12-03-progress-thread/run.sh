#!/usr/bin/env bash
# The progress thread against progress in the calls: collprobe's per-call cost and its OSU-style
# overlap (osu_iallreduce's definition, no test calls during the compute), launched alternately
# with PCOLL_PROGRESS=calls and =thread, R times each, so both see the same machine.
# Then the overlap with --overlap-compute sleep --overlap-factor 4 (the rank sleeps through a
# compute of 4 x t_pure, leaving its core free, as while a device kernel or I/O runs: where a
# progress thread can run), also with PCOLL_PROGRESS_INTERVAL=10 (mode thread10: a sleep, not a
# yield, between the thread's passes), sleepP*-MODE-R.txt.
# Then pipecg on the medium deck (overlapped: PCOLL_Iallreduce during the halo and the stencil),
# every algorithm in one launch, alternately in both modes, R times each.
# Usage: run.sh OUT P R [BUILD] [PARTS: spin,sleep,cg, the default all three]
set -euo pipefail
out=$1 P=$2 R=$3 build=${4:-build} parts=${5:-spin,sleep,cg}
has() { [[ ",$parts," == *",$1,"* ]]; }
mkdir -p "$out"
if [ "$(id -u)" = 0 ]; then export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1; fi
over=(); [ "$P" -gt "$(nproc)" ] && over=(--oversubscribe)
uptime > "$out/load.txt"
has spin && for r in $(seq 1 "$R"); do
  for mode in calls thread; do
    PCOLL_PROGRESS=$mode mpiexec "${over[@]}" -x PCOLL_PROGRESS -n "$P" "$build/apps/collprobe/collprobe" \
      --sizes 8,64k,1m --blocks 10 --entries vendor,ring,recursive_doubling,rabenseifner,chiara \
      --forms blocking,nonblocking --overlap > "$out/P${P}-$mode-$r.txt" 2>&1
  done
done
has sleep && for r in $(seq 1 "$R"); do
  for mode in calls thread thread10; do
    interval=0; [ "$mode" = thread10 ] && interval=10
    PCOLL_PROGRESS=${mode%10} PCOLL_PROGRESS_INTERVAL=$interval mpiexec "${over[@]}" \
      -x PCOLL_PROGRESS -x PCOLL_PROGRESS_INTERVAL -n "$P" "$build/apps/collprobe/collprobe" \
      --sizes 64k,1m --blocks 10 --entries vendor,ring,recursive_doubling,rabenseifner,chiara \
      --forms nonblocking --overlap --overlap-compute sleep --overlap-factor 4 \
      > "$out/sleepP${P}-$mode-$r.txt" 2>&1
  done
done
has cg && for r in $(seq 1 "$R"); do
  for mode in calls thread; do
    PCOLL_PROGRESS=$mode OMP_NUM_THREADS=1 OMP_PROC_BIND=false mpiexec "${over[@]}" \
      -x PCOLL_PROGRESS -x OMP_NUM_THREADS -x OMP_PROC_BIND -n "$P" "$build/apps/cg/cg" \
      --deck medium --solver pipecg --allreduce vendor,ring,recursive_doubling,rabenseifner,chiara \
      --runs 3 --warmup 1 -q > "$out/cg-P${P}-$mode-$r.txt" 2>&1
  done
done
uptime >> "$out/load.txt"
