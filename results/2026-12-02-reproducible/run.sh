#!/usr/bin/env bash
# The measurements of README.md here, from the repository root after scripts/build.sh:
#   results/2026-12-02-reproducible/run.sh
set -euo pipefail
out="$(dirname "$0")"
b=build
export OMP_NUM_THREADS=1 OMP_PROC_BIND=false
if [[ $(id -u) -eq 0 ]]; then export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1; fi
export OMPI_MCA_rmaps_base_oversubscribe=1 OMPI_MCA_mpi_yield_when_idle=1
# allreduce: plain against reproducible, every entry in the same interleaved blocks
for P in 2 4; do
  mpirun -np $P $b/apps/collprobe/collprobe --entries vendor,ring,recursive_doubling,rabenseifner,auto \
    --sizes 8,1k,64k,1m --blocks 20 --reproducible -q --csv "$out/collprobe-P$P.csv" > "$out/collprobe-P$P.txt" 2>&1
done
# CG: per-iteration time, sum against reproducible (two launches each: the reduction is per launch)
for P in 2 4; do for red in sum reproducible; do for s in cg1 pipecg; do
  mpirun -np $P $b/apps/cg/cg --deck quick --solver $s --runs 5 --warmup 1 --reduction $red \
    --allreduce vendor,ring,recursive_doubling --csv "$out/cg-P$P-$s-$red.csv" 2>/dev/null > "$out/cg-P$P-$s-$red.txt"
done; done; done
# k-means on unquantised data: digests across algorithms and rank counts
for P in 1 2 3 5; do for red in sum reproducible; do
  mpirun -np $P $b/apps/kmeans/kmeans --points 30000 -D 16 -K 8 --quantize-bits 0 --iterations 20 \
    --fixed-iterations --allreduce vendor,ring,recursive_doubling,chiara --runs 3 --reduction $red \
    2>/dev/null > "$out/kmeans-P$P-$red.txt"
done; done
