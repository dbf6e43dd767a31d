#!/usr/bin/env bash
# The report of a collprobe run (scripts/lib/probe_report.py --check) has every entry the run must
# have, at every size, the tables that go with them and (P > 1) the evidence that the forced
# Open MPI algorithms are the ones that run.
#   check_report.sh PYTHON SCRIPTS_LIB_DIR PCOLL_INFO RANKS CSV
# The pcoll entries expected are the allreduce algorithms pcoll-info lists (the configuration
# table, not the registry enumeration collprobe uses), so a dropped algorithm is caught.
set -euo pipefail
py="$1" scripts="$2" info_exe="$3" ranks="$4" csv="$5"
info="$("${info_exe}")"
algos="$(awk '/PCOLL_ALLREDUCE =/ {f = 1; next} f && /allowed/ {sub(/.*allowed /, ""); print; exit}' \
    <<<"${info}" | tr '|' ' ')"
[[ -n "${algos}" ]] || { echo "FAIL: no allreduce algorithms in pcoll-info's output"; exit 1; }
expect="pmpi ${algos}"
(( ranks > 1 )) && expect+=" ompi:naive ompi:recursive_doubling ompi:ring ompi:rabenseifner"
report="$("${py}" "${scripts}/probe_report.py" --check --expect "${expect}" "${csv}")"
printf '%s\n' "${report}"
need=("### P = ${ranks}" "| 8 B |" "| 8 KiB |" "stream_add:" "reduce_local:" "pcoll_reduce:")
if (( ranks > 1 )); then
    # Forcing works (ompi_tuned.hpp, order_check): Open MPI never picks ring for a
    # non-commutative op, so a broken rank order there shows that the forced ring ran.
    need+=("ring vs ompi:ring" "naive vs ompi:naive" "ompi:ring: rank order not kept"
           "ompi:recursive_doubling: rank order kept")
else
    need+=("No ompi: entries in this run" "no ompi: entries at P = 1")
fi
for n in "${need[@]}"; do
    grep -qF -- "${n}" <<<"${report}" || { echo "FAIL: the report lacks '${n}'"; exit 1; }
done
echo "check_report: ok (${expect})"
