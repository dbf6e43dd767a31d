#!/usr/bin/env bash
# The measurements of README.md here, from the repository root after scripts/build.sh:
#   results/2026-12-08-reproducible-kernels/run.sh [BEFORE_BUILD]
# BEFORE_BUILD: a build tree of the commit before the vector kernels (7fd358f; only its
# collprobe is used), for the allreduce's before/after launches; without it they are skipped.
set -euo pipefail
out="$(dirname "$0")"
b=build
before="${1:-}"
export OMP_NUM_THREADS=1 OMP_PROC_BIND=false
if [[ $(id -u) -eq 0 ]]; then export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1; fi
export OMPI_MCA_rmaps_base_oversubscribe=1 OMPI_MCA_mpi_yield_when_idle=1
# 1. The local kernels, ns per value (every deposit kernel the CPU has, side by side).
$b/apps/collprobe/collprobe --binned-costs -q --csv "$out/binned-costs.csv" > "$out/binned-costs.txt"
# 2. CG, medium deck, cg solver, the vendor's allreduce: sum, reproducible with the portable
#    kernel, reproducible with the default (widest) kernel; two rounds in alternating order.
for P in 2 4; do for round in 1 2; do
  runs=(sum portable auto); [[ $round == 2 ]] && runs=(auto portable sum)
  for r in "${runs[@]}"; do
    red=reproducible; kern=$r; [[ $r == sum ]] && { red=sum; kern=auto; }
    PCOLL_BINNED_KERNEL=$kern mpirun -np $P -x PCOLL_BINNED_KERNEL $b/apps/cg/cg --deck medium --solver cg \
      --runs 5 --warmup 1 --reduction $red --allreduce vendor 2>/dev/null > "$out/cg-P$P-$r-$round.txt"
  done
done; done
# 3. k-means, 30000 points, D = 16, K = 8, unquantised, 20 iterations: the same three.
for P in 2 4; do for round in 1 2; do
  runs=(sum portable auto); [[ $round == 2 ]] && runs=(auto portable sum)
  for r in "${runs[@]}"; do
    red=reproducible; kern=$r; [[ $r == sum ]] && { red=sum; kern=auto; }
    PCOLL_BINNED_KERNEL=$kern mpirun -np $P -x PCOLL_BINNED_KERNEL $b/apps/kmeans/kmeans --points 30000 -D 16 -K 8 \
      --quantize-bits 0 --iterations 20 --fixed-iterations --runs 7 --reduction $red --allreduce vendor \
      2>/dev/null > "$out/kmeans-P$P-$r-$round.txt"
  done
done; done
# 4. The allreduce, plain against reproducible in the same interleaved blocks (collprobe
#    --reproducible), this commit and (with BEFORE_BUILD) the one before, launches alternating.
for P in 2 4; do for round in 1 2; do
  for which in after before; do
    bin=$b; [[ $which == before ]] && { [[ -n "$before" ]] || continue; bin="$before"; }
    mpirun -np $P $bin/apps/collprobe/collprobe --entries vendor,ring,rabenseifner,shm \
      --sizes 8,1k,64k,1m --blocks 20 --reproducible -q --csv "$out/collprobe-P$P-$which-$round.csv" \
      > "$out/collprobe-P$P-$which-$round.txt" 2>&1
  done
done; done
