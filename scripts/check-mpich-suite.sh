#!/usr/bin/env bash
# Runs MPICH's own collective tests (test/mpi/coll of Debian's mpich source package) through
# libpcoll_mpi.so: plain programs built against Open MPI, preloaded, under every algorithm family,
# at P = 1..8. An outside check of pcoll's MPI semantics (nonblocking collectives outstanding on
# several communicators completed in random order, persistent collectives started out of order,
# datatypes and ops freed before completion) that nobody at pcoll wrote.
#   scripts/check-mpich-suite.sh [--tests "nonblocking nonblocking2 ..."] [--ranks "1 2 ... 8"]
#                                [--families "vendor auto a b c shm"] [--timeout S] [--out DIR]
#                                [--no-preload]
# Tests: nonblocking, nonblocking2, nonblocking3 and every p_*.c (persistent) that builds against
# Open MPI 4.1, whose MPI_<Coll>_init are mapped to its MPIX_<Coll>_init. Two MPICH-isms are
# patched in the copies built here (never in a way that changes what a test checks):
# nonblocking2.c and nonblocking3.c keep MPI_Datatype arrays in `int *` (MPICH's handles are
# ints; Open MPI's are pointers, so unpatched they crash in MPI_Ialltoallw without pcoll too).
# A test is not run at a P its source rejects (p_order, p_red: P >= 2; p_gatherv: P divides 10);
# those runs are reported as "skip (needs ...)".
# Families (PCOLL_<COLL> for every collective pcoll serves):
#   vendor  every collective on the vendor (through pcoll's engine)
#   auto    the defaults (auto)
#   a       ring / pairwise / binomial / dissemination
#   b       recursive doubling and halving / bruck / bine
#   c       chiara / node_aware (PCOLL_RANKS_PER_NODE=2) / tree
#   shm     allreduce, bcast, reduce, allgather, alltoall and barrier through the node segment
#           (the rest auto; persistent calls fall back to the vendor, visibly)
# Writes DIR/results.csv (test,family,P,status,seconds) and prints a summary; exits non-zero if
# any run failed. The source package is fetched once into .deps/src (Debian's archive, a private
# apt list as scripts/setup-deps.sh does for trilinos); the build goes into DIR/bin.
set -euo pipefail
here="$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd -P)"
# shellcheck source=lib/common.sh
source "${here}/lib/common.sh"
root="$(pcoll_repo_root)"
PCOLL_LOG_TAG="mpich-suite"

MPICH_DEB_VERSION="4.0.2-3"   # Debian 12 (bookworm)
MPICH_ORIG="mpich_4.0.2.orig.tar.xz"
MPICH_ORIG_SHA256="b27039f964afeb6b8a3e009c56b441cbe368c26d6d6476ad3bb7190996875860"

tests="" ranks="1 2 3 4 5 6 7 8" families="vendor auto a b c shm" limit=180 preload=1
out="${root}/mpich-suite-out"
while [[ $# -gt 0 ]]; do
    case "$1" in
        --tests) tests="$2"; shift 2 ;;
        --ranks) ranks="$2"; shift 2 ;;
        --families) families="$2"; shift 2 ;;
        --timeout) limit="$2"; shift 2 ;;
        --out) out="$2"; shift 2 ;;
        --no-preload) preload=0; shift ;;
        -h|--help) sed -n '2,27p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) pcoll_die "unknown argument '$1' (see --help)" ;;
    esac
done

build="${PCOLL_BUILD_DIR:-${root}/build}"
"${here}/build.sh" "${build}" pcoll_mpi >&2
lib="${build}/collectives/libpcoll_mpi.so"
[[ -f "${lib}" ]] || pcoll_die "no ${lib} after the build"
pcoll_mpirun_env

# 1. The source, fetched once (the tarball's sha256 is bookworm's Sources index entry).
src_cache="${root}/.deps/src"
mkdir -p "${src_cache}"
if [[ ! -f "${src_cache}/${MPICH_ORIG}" ]] ||
    [[ "$(sha256sum "${src_cache}/${MPICH_ORIG}" | cut -d' ' -f1)" != "${MPICH_ORIG_SHA256}" ]]; then
    tmp="$(mktemp -d)"
    trap 'rm -rf -- "${tmp}"' EXIT
    mkdir -p "${tmp}/lists/partial" "${tmp}/cache/archives/partial"
    mirror="${PCOLL_DEBIAN_MIRROR:-http://deb.debian.org/debian}"
    printf 'deb-src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] %s bookworm main\n' \
        "${mirror}" >"${tmp}/sources.list"
    opts=(-o "Dir::Etc::SourceList=${tmp}/sources.list" -o "Dir::Etc::SourceParts=/dev/null"
          -o "Dir::State::Lists=${tmp}/lists" -o "Dir::Cache=${tmp}/cache"
          -o "Dir::Cache::pkgcache=" -o "Dir::Cache::srcpkgcache=" -o "Acquire::Languages=none" -q)
    [[ "$(id -u)" -eq 0 ]] && opts+=(-o "APT::Sandbox::User=root")
    pcoll_msg "fetching mpich=${MPICH_DEB_VERSION}'s source from ${mirror}"
    apt-get "${opts[@]}" update >"${tmp}/update.log" 2>&1 ||
        { cat "${tmp}/update.log" >&2; pcoll_die "apt-get update (deb-src) failed"; }
    (cd "${src_cache}" && apt-get "${opts[@]}" source --download-only "mpich=${MPICH_DEB_VERSION}") \
        >"${tmp}/source.log" 2>&1 || { cat "${tmp}/source.log" >&2; pcoll_die "apt-get source mpich failed"; }
    [[ "$(sha256sum "${src_cache}/${MPICH_ORIG}" | cut -d' ' -f1)" == "${MPICH_ORIG_SHA256}" ]] ||
        pcoll_die "sha256 mismatch for ${src_cache}/${MPICH_ORIG}"
fi

# 2. The tests, built against the system's Open MPI (mpicc), with MPICH's test harness.
bin="${out}/bin"
t="${out}/src/mpich-4.0.2/test/mpi"
mkdir -p "${bin}" "${out}/src"
if [[ ! -d "${t}/coll" ]]; then
    tar -xJf "${src_cache}/${MPICH_ORIG}" -C "${out}/src" --wildcards \
        '*/test/mpi/coll/*' '*/test/mpi/util/*' '*/test/mpi/include/*'
fi
cat >"${bin}/mpitestconf.h" <<'EOF'
/* What MPICH's configure would find on Debian 12 with Open MPI (only what the harness reads). */
#define HAVE_STDARG_H 1
#define HAVE_SYS_TIME_H 1
#define HAVE_SYS_RESOURCE_H 1
#define HAVE_GETRUSAGE 1
#define HAVE_MPI_WIN_CREATE 1
#define HAVE_STDLIB_H 1
#define HAVE_STRING_H 1
#define HAVE_UNISTD_H 1
#define USE_STRICT_MPI 1
#define THREAD_PACKAGE_NAME THREAD_PACKAGE_POSIX
EOF
defs=()
for c in Allreduce Allgather Allgatherv Alltoall Alltoallv Alltoallw Barrier Bcast Exscan Gather \
    Gatherv Neighbor_allgather Neighbor_allgatherv Neighbor_alltoall Neighbor_alltoallv \
    Neighbor_alltoallw Reduce Reduce_scatter_block Reduce_scatter Scan Scatter Scatterv; do
    defs+=("-DMPI_${c}_init=MPIX_${c}_init")
done
if [[ -z "${tests}" ]]; then
    tests="nonblocking nonblocking2 nonblocking3"
    for f in "${t}"/coll/p_*.c; do tests+=" $(basename "${f}" .c)"; done
fi
for name in ${tests}; do
    [[ -x "${bin}/${name}" ]] && continue
    [[ -f "${t}/coll/${name}.c" ]] || pcoll_die "no test ${name}.c in MPICH's test/mpi/coll"
    sed -E 's/\bint \*(send|recv)types\b/MPI_Datatype *\1types/' "${t}/coll/${name}.c" \
        >"${bin}/${name}.c"
    mpicc -O1 -w -I"${bin}" -I"${t}/include" -include mpi.h -include mpi-ext.h "${defs[@]}" \
        -o "${bin}/${name}" "${bin}/${name}.c" "${t}/util/mtest.c" "${t}/util/mtest_single.c" \
        "${t}/util/mtest_common.c" -lpthread >"${bin}/${name}.build.log" 2>&1 ||
        { tail -n 5 "${bin}/${name}.build.log" >&2; pcoll_die "${name} does not build"; }
done

# 3. The runs.
family_env() {
    case "$1" in
        vendor) echo "PCOLL_ALLREDUCE=vendor PCOLL_REDUCE_SCATTER_BLOCK=vendor PCOLL_REDUCE_SCATTER=vendor PCOLL_ALLGATHER=vendor PCOLL_ALLGATHERV=vendor PCOLL_ALLTOALL=vendor PCOLL_ALLTOALLV=vendor PCOLL_BCAST=vendor PCOLL_REDUCE=vendor PCOLL_BARRIER=vendor" ;;
        auto) echo "PCOLL_ALLREDUCE=auto" ;;
        a) echo "PCOLL_ALLREDUCE=ring PCOLL_REDUCE_SCATTER_BLOCK=ring PCOLL_REDUCE_SCATTER=ring PCOLL_ALLGATHER=ring PCOLL_ALLGATHERV=ring PCOLL_ALLTOALL=pairwise PCOLL_ALLTOALLV=pairwise PCOLL_BCAST=binomial PCOLL_REDUCE=binomial PCOLL_BARRIER=dissemination" ;;
        b) echo "PCOLL_ALLREDUCE=recursive_doubling PCOLL_REDUCE_SCATTER_BLOCK=recursive_halving PCOLL_REDUCE_SCATTER=recursive_halving PCOLL_ALLGATHER=recursive_doubling PCOLL_ALLGATHERV=recursive_doubling PCOLL_ALLTOALL=bruck PCOLL_BCAST=bine PCOLL_REDUCE=bine" ;;
        c) echo "PCOLL_ALLREDUCE=chiara PCOLL_REDUCE_SCATTER_BLOCK=chiara PCOLL_ALLGATHER=chiara PCOLL_ALLTOALL=node_aware PCOLL_BCAST=tree PCOLL_REDUCE=tree PCOLL_RANKS_PER_NODE=2" ;;
        shm) echo "PCOLL_ALLREDUCE=shm PCOLL_BCAST=shm PCOLL_REDUCE=shm PCOLL_ALLGATHER=shm" \
                  "PCOLL_ALLTOALL=shm PCOLL_BARRIER=shm" ;;
        *) pcoll_die "unknown family '$1' (vendor, auto, a, b, c, shm)" ;;
    esac
}
# what a test's source asks of P, where it aborts or is erroneous otherwise (empty: any P):
# p_order checks that size >= 2; p_red reduces to root 1; p_gatherv aborts unless P divides 10.
needs() {
    case "$1" in
        p_order | p_red) [[ $2 -ge 2 ]] || echo "needs P >= 2" ;;
        p_gatherv) [[ $2 -gt 10 || $((10 % $2)) -eq 0 ]] || echo "needs P to divide 10" ;;
    esac
}

csv="${out}/results.csv"
echo "test,family,P,status,seconds" >"${csv}"
mkdir -p "${out}/logs"
pass=0 fail=0 skip=0
for fam in ${families}; do
    xs=(-x PCOLL_FALLBACK=silent)
    for kv in $(family_env "${fam}"); do xs+=(-x "${kv}"); done
    [[ ${preload} -eq 1 ]] && xs+=(-x "LD_PRELOAD=${lib}")
    for name in ${tests}; do
        for P in ${ranks}; do
            why="$(needs "${name}" "${P}")"
            if [[ -n "${why}" ]]; then
                echo "${name},${fam},${P},skip (${why}),0" >>"${csv}"
                skip=$((skip + 1))
                continue
            fi
            log="${out}/logs/${name}.${fam}.np${P}.log"
            t0=${SECONDS}
            if timeout "${limit}" mpirun -n "${P}" "${xs[@]}" "${bin}/${name}" >"${log}" 2>&1 &&
                grep -q "No Errors" "${log}"; then
                status=pass; pass=$((pass + 1))
            else
                status=FAIL; fail=$((fail + 1))
                pcoll_msg "FAIL ${name} family ${fam} P=${P} (log: ${log})"
            fi
            echo "${name},${fam},${P},${status},$((SECONDS - t0))" >>"${csv}"
        done
    done
    pcoll_msg "family ${fam}: done (${pass} passed, ${fail} failed so far)"
done
echo "${pass} passed, ${fail} failed, ${skip} skipped (MPICH test/mpi/coll through $([[ ${preload} -eq 1 ]] && echo libpcoll_mpi.so || echo 'the vendor alone'); ${csv})"
[[ ${fail} -eq 0 ]]
