#!/bin/bash
# Packs SimGrid 3.32 (Debian 12's libsimgrid-dev / simgrid) with the libraries it loads, a patched
# smpirun and the SMPI collbench into .smpibundle/, to run simulations on a machine without
# SimGrid (here: the 16-core machine lent to this session). From the repository root, after
# scripts/build-smpi.sh build-smpi collbench:
#   results/2026-12-04-simulation-recexch-mixed/bundle.sh
#   results/2026-12-04-simulation-recexch-mixed/drive.sh JOBS OUTDIR LIMIT_S   (there)
set -euo pipefail
B=.smpibundle
rm -rf "$B"; mkdir -p "$B/lib"
for f in $(ldd /usr/lib/x86_64-linux-gnu/simgrid/smpimain build-smpi/apps/collbench/collbench |
           awk '/=>/{print $3}' | sort -u | grep -vE '/libc.so|/libm.so|ld-linux'); do
  cp -L "$f" "$B/lib/"
done
strip --strip-unneeded "$B"/lib/*.so* 2>/dev/null || true
cp /usr/lib/x86_64-linux-gnu/simgrid/smpimain build-smpi/apps/collbench/collbench "$B/"
sed -e 's#/usr/lib/x86_64-linux-gnu/simgrid/smpimain#${SMPI_BUNDLE}/smpimain#' \
    -e 's#^export LD_LIBRARY_PATH="/usr/lib/x86_64-linux-gnu:/usr/lib/x86_64-linux-gnu#export LD_LIBRARY_PATH="${SMPI_BUNDLE}/lib#' \
    /usr/bin/smpirun >"$B/smpirun"
chmod +x "$B/smpirun"
cp "$(dirname "$0")/drive.sh" "$B/"
