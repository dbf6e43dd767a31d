#!/bin/bash
# Interleaved A/B/C: rounds of one collprobe launch per tree, P ranks, pmpi and shm entries.
P=${1:-2}; rounds=${2:-4}; out=/tmp/abrun/p$P; mkdir -p $out
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
for r in $(seq 1 $rounds); do
  for t in ab43a03 9e4b35e main; do
    d=/tmp/ab-$t; [ $t = main ] && d=/work/main
    mpirun --oversubscribe -n $P -x PCOLL_RULES=none $d/build/apps/collprobe/collprobe --sizes 8,64,1k,8k,64k,1m,4m \
      --blocks 10 --entries pmpi,shm -q --csv $out/$t-$r.csv > $out/$t-$r.txt 2>&1 || echo "FAIL $t $r"
  done
done
