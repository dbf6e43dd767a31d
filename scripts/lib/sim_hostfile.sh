#!/usr/bin/env bash
# sim_hostfile.sh PLATFORM.xml P  ->  an smpirun hostfile on stdout
#
# Places P ranks consecutively: the first host gets as many ranks as it has cores, then the next host,
# ... (lines "hostname:ncores", the last one partial).  Host names and core counts are read from the
# platform file itself (every <cluster> element: prefix + each radical + suffix, core attribute; and
# every plain <host> element with its core attribute), in document order, so there is no second list.
# Fails with a message when the platform has fewer cores than P.
#   scripts/lib/sim_hostfile.sh inputs/platforms/polaris.xml 4096 > hostfile
#   smpirun -np 4096 -platform inputs/platforms/polaris.xml -hostfile hostfile ...
set -euo pipefail

if [[ $# -ne 2 ]]; then
  echo "usage: $0 PLATFORM.xml P   (prints an smpirun hostfile placing P ranks consecutively)" >&2
  exit 2
fi
platform=$1
nranks=$2
if [[ ! -r $platform ]]; then
  echo "$0: cannot read platform file '$platform'" >&2
  exit 2
fi
if ! [[ $nranks =~ ^[0-9]+$ ]] || ((nranks < 1)); then
  echo "$0: P must be a positive integer, got '$nranks'" >&2
  exit 2
fi

# Debian's python3 first (plain standard library; any python3 works).
py=/usr/bin/python3
[[ -x $py ]] || py=$(command -v python3 || true)
if [[ -z $py ]]; then
  echo "$0: needs python3 to parse the platform XML" >&2
  exit 2
fi

exec "$py" - "$platform" "$nranks" <<'PYEOF'
import sys
import xml.etree.ElementTree as ET

path, nranks = sys.argv[1], int(sys.argv[2])
prog = "sim_hostfile.sh"
try:
    root = ET.parse(path).getroot()
except ET.ParseError as err:
    sys.exit(f"{prog}: {path} is not well-formed XML: {err}")


def radicals(text):
    """SimGrid radical syntax: comma-separated ids or inclusive ranges, e.g. '0-127' or '0-3,8,10-11'."""
    out = []
    for part in text.split(","):
        part = part.strip()
        if not part:
            continue
        if "-" in part:
            lo, hi = part.split("-", 1)
            out.extend(range(int(lo), int(hi) + 1))
        else:
            out.append(int(part))
    return out


hosts = []  # (name, cores) in document order
for el in root.iter():
    if el.tag == "cluster":
        cores = int(el.get("core", "1"))
        prefix, suffix = el.get("prefix", ""), el.get("suffix", "")
        hosts.extend((f"{prefix}{r}{suffix}", cores) for r in radicals(el.get("radical", "")))
    elif el.tag == "host":
        hosts.append((el.get("id"), int(el.get("core", "1"))))

total = sum(c for _, c in hosts)
if not hosts:
    sys.exit(f"{prog}: no <cluster> or <host> elements found in {path}")
if total < nranks:
    sys.exit(f"{prog}: {path} has only {total} cores on {len(hosts)} hosts; cannot place P={nranks} "
             f"ranks one per core")

left = nranks
lines = []
for name, cores in hosts:
    if left == 0:
        break
    n = min(cores, left)
    lines.append(f"{name}:{n}")
    left -= n
sys.stdout.write("\n".join(lines) + "\n")
PYEOF
