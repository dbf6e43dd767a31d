#!/usr/bin/env bash
# The default path (PCOLL_PROGRESS=calls) before and after the progress thread: collprobe of two
# builds launched alternately, R times each, P = 2. Usage: ab.sh OUT BEFORE_BUILD AFTER_BUILD R
set -euo pipefail
out=$1 before=$2 after=$3 R=$4
mkdir -p "$out"
if [ "$(id -u)" = 0 ]; then export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1; fi
uptime > "$out/load.txt"
for r in $(seq 1 "$R"); do
  for side in before after; do
    b=$before; [ "$side" = after ] && b=$after
    mpiexec -n 2 "$b/apps/collprobe/collprobe" --sizes 8,64k --blocks 20 \
      --entries vendor,recursive_doubling,chiara --forms blocking,nonblocking,persistent \
      > "$out/P2-$side-$r.txt" 2>&1
  done
done
uptime >> "$out/load.txt"
