#!/usr/bin/env bash
# sim_platforms_check.sh [SOURCE_ROOT]  - quick (seconds) check of the SimGrid platform files
#
# For each inputs/platforms/*.xml: scripts/lib/sim_hostfile.sh places P = 4096 ranks (and refuses more cores
# than the platform has), then smpirun runs tests/scripts/sim_nic_sharing.c on two hosts (P = 2 x cores
# per host, at most 104) and we check what inputs/platforms/README.md states: MPI_COMM_TYPE_SHARED groups the ranks of a
# host, concurrent off-host senders share the host link, the loopback is used within a host.
# Needs smpicc/smpirun (SimGrid); exits 77 (ctest SKIP_RETURN_CODE) when they are missing.
set -euo pipefail
root=${1:-$(cd "$(dirname "$0")/../.." && pwd)}
plat_dir=$root/inputs/platforms
gen=$root/scripts/lib/sim_hostfile.sh
fail=0
say() { printf '%s\n' "$*"; }
bad() { say "FAIL: $*"; fail=1; }

for tool in smpicc smpirun; do
  command -v "$tool" >/dev/null || { say "SKIP: $tool not found (SimGrid not installed)"; exit 77; }
done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
smpicc -O1 -o "$work/nic" "$root/tests/scripts/sim_nic_sharing.c"

cfg=(--cfg=smpi/simulate-computation:no --cfg=smpi/lat-factor:0:1 --cfg=smpi/bw-factor:0:1
     --cfg=smpi/privatization:1 --log=root.thres:critical)
for xml in "$plat_dir"/polaris.xml "$plat_dir"/aurora.xml "$plat_dir"/fugaku.xml; do
  name=$(basename "$xml" .xml)
  [[ -r $xml ]] || { bad "$xml missing"; continue; }
  # hostfile generator: P = 4096 fits, one rank per core, consecutive
  "$gen" "$xml" 4096 > "$work/hf4096" || { bad "$name: sim_hostfile.sh cannot place 4096 ranks"; continue; }
  placed=$(awk -F: '{s += $2} END {print s}' "$work/hf4096")
  [[ $placed == 4096 ]] || bad "$name: hostfile for 4096 places $placed ranks"
  cores=$(head -n1 "$work/hf4096" | cut -d: -f2)
  if "$gen" "$xml" 1000000 > /dev/null 2> "$work/err"; then
    bad "$name: sim_hostfile.sh accepted P = 1000000"
  elif ! grep -q "cannot place" "$work/err"; then
    bad "$name: no clear message for too many ranks: $(cat "$work/err")"
  fi
  # two hosts, one rank per core
  np=$((2 * cores))
  "$gen" "$xml" "$np" > "$work/hf"
  if ! out=$(cd "$work" && timeout 120 smpirun -np "$np" -platform "$xml" -hostfile "$work/hf" "${cfg[@]}" \
               ./nic 2>&1); then
    bad "$name: smpirun failed: $out"
    continue
  fi
  out=$(grep -v '^\[' <<< "$out")
  say "== $name (P = $np, $cores cores per host)"
  say "$out"
  grep -q "split_type(SHARED): 2 communicators, sizes min $cores max $cores" <<< "$out" ||
    bad "$name: MPI_COMM_TYPE_SHARED does not group the $cores ranks of a host"
  ratio=$(sed -n 's/^C\/B = \([0-9.]*\).*/\1/p' <<< "$out")
  awk -v r="$ratio" -v c="$cores" 'BEGIN {exit !(r > c / 2)}' ||
    bad "$name: $cores concurrent off-host senders do not share the host link (C/B = $ratio)"
  lat=$(sed -n 's/^D intra-host 8 B one-way latency *\([0-9.]*\) us/\1/p' <<< "$out")
  awk -v l="$lat" 'BEGIN {exit !(l > 0.1 && l < 1.0)}' ||
    bad "$name: intra-host latency $lat us is not the platform's loopback latency"
done
[[ $fail == 0 ]] && say "PASS: all platforms parse, hostfiles place ranks consecutively, NIC sharing as documented"
exit $fail
