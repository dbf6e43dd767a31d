#!/usr/bin/env bash
# SMPI tests (registered by tests/smpi/CMakeLists.txt): the SMPI build must not rot.
#   sim_test.sh MODE SMPI_BUILD_DIR SOURCE_ROOT WORKDIR
# MODE:
#   verify       collbench runs every algorithm of every collective it knows (collbench --list)
#                at P = 16 on tests/smpi/small.xml (4 hosts x 4 cores), odd counts, each result
#                checked exactly (collbench exits 1 on any wrong result), and the parameter
#                variants that change a schedule's peers (Swing per torus dimension, multiport)
#   determinism  the same simulation twice gives identical simulated times, bit for bit
#   kmeans       the k-means app at P = 16 with vendor, chiara and rabenseifner: identical
#                clustering (digest) and the injected compute time is charged
#   cg           the CG app (cg1, reproducible reduction) at P = 16 with vendor, chiara and
#                rabenseifner: bitwise the same iterates, and the injected compute is charged
#   calibrate    scripts/pcoll-calibrate.sh --smpi on the Polaris-like platform at P = 512 (16
#                nodes) recovers the platform file's numbers: loopback 0.3 us / 20 GB/s (a
#                FATPIPE: a rank's flows all at full rate), 2 links of 0.5 us / 50 GB/s to a node
#                of the same router, one more link to leave a router of 8 nodes; and on the
#                Fugaku-like torus at P = 384 (8 nodes) its dims, link bandwidth and per-hop
#                latency
set -euo pipefail
mode="$1" smpi_build="$2" root="$3" work="$4"
mkdir -p "${work}"
cd "${work}"
"${root}/scripts/lib/sim_hostfile.sh" "${root}/tests/smpi/small.xml" 16 >hosts16
run() {
    smpirun -np 16 -platform "${root}/tests/smpi/small.xml" -hostfile hosts16 \
        --cfg=smpi/simulate-computation:no --cfg=smpi/lat-factor:0:1 --cfg=smpi/bw-factor:0:1 \
        --cfg=smpi/coll-selector:mpich --cfg=smpi/privatization:1 --log=root.thres:warning "$@"
}
bench="${smpi_build}/apps/collbench/collbench"
# True when a collbench CSV has a row whose `wrong` column (found by name) is not 0, or no such
# column.
wrong_rows() {
    awk -F, 'NR == 1 {for (i = 1; i <= NF; i++) if ($i == "wrong") w = i; if (!w) {bad = 1; exit}; next}
             $w != 0 {bad = 1} END {exit !bad}' "$1"
}
case "${mode}" in
    verify)
        run "${bench}" --list >collectives.txt
        n_coll=$(grep -c . collectives.txt)
        [[ ${n_coll} -ge 4 ]] || { echo "FAIL: collbench --list gave ${n_coll} collectives"; exit 1; }
        for coll in $(cut -d' ' -f1 collectives.txt); do
            # default --algos: every algorithm of the collective, vendor first
            run "${bench}" --coll "${coll}" --per-rank-segment 1,7,64,1000 --trials 2 --warmup 1 \
                --no-overhead -q --csv "verify-${coll}.csv"
            n=$(($(wc -l <"verify-${coll}.csv") - 1))
            echo "${coll}: ${n} rows verified"
            n_algos=$(($(grep "^${coll} " collectives.txt | wc -w) - 1))
            [[ ${n} -eq $((4 * n_algos)) ]] || { echo "FAIL: ${n} rows for ${coll}, expected 4 sizes x ${n_algos} algorithms"; exit 1; }
            # the `wrong` column by name (later columns, e.g. vs_vendor_lo, follow it)
            if wrong_rows "verify-${coll}.csv"; then
                echo "FAIL: a wrong or unverified row (or no 'wrong' column)"; exit 1
            fi
        done
        # parameter variants that change a schedule's peers (Swing per torus dimension: 4x4, 4x2x2;
        # multiport: 4 parts at once on the 4x4, fewer at S = 1)
        run "${bench}" --coll allreduce \
            --algos swing:swing_dims=2,swing:swing_dims=3,swing:swing_dims=2:swing_multiport=1 \
            --per-rank-segment 1,7,64,1000 --trials 2 --warmup 1 --no-overhead -q --csv verify-variants.csv
        n=$(($(wc -l <verify-variants.csv) - 1))
        echo "allreduce variants: ${n} rows verified"
        [[ ${n} -eq 12 ]] || { echo "FAIL: ${n} rows for the variants, expected 12"; exit 1; }
        if wrong_rows verify-variants.csv; then echo "FAIL: a wrong or unverified variant row"; exit 1; fi
        ;;
    calibrate)
        "${root}/scripts/pcoll-calibrate.sh" --smpi "${root}/inputs/platforms/polaris.xml" --ranks 512 \
            --build "${smpi_build}" --out polaris-512.toml
        /usr/bin/python3 - polaris-512.toml <<'PY'
import math, sys, tomllib
m = tomllib.load(open(sys.argv[1], "rb"))
bad = []
def near(what, got, want, tol=0.05):
    ok = math.isinf(want) and math.isinf(got) or (not math.isinf(got) and abs(got / want - 1) <= tol)
    print(f"{what:28s} {got:12.4g}  platform {want:12.4g}  {'ok' if ok else 'FAIL'}")
    if not ok:
        bad.append(what)
near("intra.latency", m["intra"]["latency"], 0.3e-6)
near("intra.bandwidth", m["intra"]["bandwidth"], 20e9)
near("intra.rank_bandwidth", m["intra"].get("rank_bandwidth", m["intra"]["bandwidth"]), math.inf)
near("inter.latency", m["inter"]["latency"], 1.0e-6)
near("inter.bandwidth", m["inter"]["bandwidth"], 50e9)
near("inter.link_bandwidth", m["inter"]["link_bandwidth"], 50e9)
tiers = {t["nodes"]: t for t in m.get("tier", [])}
if 8 not in tiers:
    bad.append("no [[tier]] of 8 nodes (a router)")
else:
    near("tier 8 latency", tiers[8].get("latency", 0), 0.5e-6)
    near("tier 8 bandwidth", tiers[8].get("bandwidth", math.inf), 50e9)
extra = sorted(set(tiers) - {8})
if extra:
    bad.append(f"tiers that the platform does not have at 16 nodes: {extra}")
near("reduce.bandwidth", m["reduce"]["bandwidth"], math.inf)
sys.exit(f"FAIL: {', '.join(bad)}" if bad else 0)
PY
        # A torus (the Fugaku-like platform's 6-D one, 8 nodes: 1 and 2 hops from node 0): its
        # dims taken from the platform file, 6.8 GB/s per link and 0.49 us per hop recovered.
        "${root}/scripts/pcoll-calibrate.sh" --smpi "${root}/inputs/platforms/fugaku.xml" --ranks 384 \
            --build "${smpi_build}" --out fugaku-384.toml
        /usr/bin/python3 - fugaku-384.toml <<'PY'
import math, sys, tomllib
m = tomllib.load(open(sys.argv[1], "rb"))
t = m.get("torus")
if t is None or "tier" in m:
    sys.exit(f"FAIL: want a [torus] and no [[tier]], got tables {sorted(m)}")
bad = [] if t["dims"] == [2, 3, 2, 2, 2, 2] else [f"dims {t['dims']}"]
for what, got, want in (("torus.link_bandwidth", t["link_bandwidth"], 6.8e9),
                        ("torus.hop_latency", t["hop_latency"], 0.49e-6),
                        ("inter.latency", m["inter"]["latency"], 0.49e-6 + 0.01e-6)):
    ok = abs(got / want - 1) <= 0.05
    print(f"{what:28s} {got:12.4g}  platform {want:12.4g}  {'ok' if ok else 'FAIL'}")
    if not ok:
        bad.append(what)
sys.exit(f"FAIL: {', '.join(bad)}" if bad else 0)
PY
        ;;
    determinism)
        for i in 1 2; do
            run "${bench}" --algos vendor,ring,rabenseifner,chiara --per-rank-segment 8,512 \
                --trials 2 --warmup 1 --no-overhead -q --csv "det-${i}.csv"
        done
        cmp det-1.csv det-2.csv || { echo "FAIL: two identical simulations differ"; diff det-1.csv det-2.csv; exit 1; }
        echo "identical: $(($(wc -l <det-1.csv) - 1)) rows" ;;
    kmeans)
        run "${smpi_build}/apps/kmeans/kmeans" --deck quick --allreduce vendor,chiara,rabenseifner \
            --iterations 3 --fixed-iterations --runs 1 --warmup 0 -q --sim-compute-per-iteration 0.002 \
            --csv km.csv | tee km.out
        n=$(awk -F, 'NR > 1 {print $17}' km.csv | sort -u | wc -l)
        [[ ${n} -eq 1 ]] || { echo "FAIL: the algorithms' digests differ"; exit 1; }
        # 3 iterations x 2 ms injected: the critical-path compute of each run is at least 6 ms
        awk -F, 'NR > 1 && $24 < 0.006 {bad = 1} END {exit bad}' km.csv ||
            { echo "FAIL: injected compute not charged"; exit 1; }
        echo "k-means: identical digests, compute charged" ;;
    cg)
        run "${smpi_build}/apps/cg/cg" --nx 16 --ny 16 --nz 16 --solver cg1 --reduction reproducible \
            --allreduce vendor,chiara,rabenseifner --runs 1 --warmup 0 -q \
            --sim-stencil-per-point 1e-8 --sim-vector-per-point 1e-8 --csv cg.csv | tee cg.out
        grep -q "bit-identical iterates" cg.out || { echo "FAIL: the algorithms' iterates differ"; exit 1; }
        # 16^3 points on 16 ranks: 256 per rank, 1e-8 s each per iteration in the stencil phase
        awk -F, 'NR == 1 {for (i = 1; i <= NF; i++) col[$i] = i; next}
                 $col["stencil_s"] < $col["iterations"] * 256 * 1e-8 {bad = 1} END {exit bad}' cg.csv ||
            { echo "FAIL: injected compute not charged"; exit 1; }
        # pipecg overlapped with PCOLL_Iallreduce (the nonblocking path in simulation): bitwise
        # the blocking run under each algorithm, and less allreduce time left exposed once a
        # stencil of 25.6 us per iteration runs while the reduction is in flight. Each MPI_Test
        # costs 1e-7 s, not grown (pcoll's waits poll; at smpi/test 0 a polling rank would spin
        # without simulated time passing).
        for overlap in false true; do
            run --cfg=smpi/test:1e-7 --cfg=smpi/grow-injected-times:no "${smpi_build}/apps/cg/cg" \
                --nx 16 --ny 16 --nz 16 --solver pipecg --overlap "${overlap}" \
                --allreduce chiara,rabenseifner --runs 1 --warmup 0 -q \
                --sim-stencil-per-point 1e-7 --sim-vector-per-point 1e-8 --csv "pipecg-${overlap}.csv" \
                >"pipecg-${overlap}.out"
        done
        awk -F, 'FNR == 1 {for (i = 1; i <= NF; i++) col[$i] = i; next}
                 FILENAME ~ /false/ {d[$col["algorithm"]] = $col["digest"]; a[$col["algorithm"]] = $col["allreduce_s"]; next}
                 {n++; if (d[$col["algorithm"]] != $col["digest"]) {print "FAIL: pipecg overlapped differs from blocking: " $col["algorithm"]; bad = 1}
                  if (!($col["allreduce_s"] < a[$col["algorithm"]])) {print "FAIL: no allreduce time hidden: " $col["algorithm"] " " $col["allreduce_s"] " vs " a[$col["algorithm"]]; bad = 1}}
                 END {if (n != 2) {print "FAIL: " n " overlapped rows"; bad = 1} exit bad}' \
            pipecg-false.csv pipecg-true.csv || exit 1
        echo "cg: identical iterates, compute charged; pipecg overlapped bitwise the blocking one, allreduce time hidden" ;;
    *) echo "unknown mode ${mode}"; exit 2 ;;
esac
