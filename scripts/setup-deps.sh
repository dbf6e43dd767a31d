#!/usr/bin/env bash
# Install pcoll's build/test dependencies.
#
#  1. Debian packages (apt), installing only the ones that are missing. Open MPI is the MPI
#     (the mpi-default alternative, the main build); MPICH and its parallel HDF5 are installed
#     beside it for scripts/test.sh's MPICH tree (mpicc.mpich, mpiexec.mpich, h5pcc.mpich).
#  2. Kokkos (Serial + OpenMP backends) built from the packages/kokkos subtree
#     of Debian's own trilinos source package, pinned to an exact version,
#     installed into <repo>/.deps/kokkos.  The system's apt configuration is
#     not modified: the source package is fetched through a private, temporary
#     apt sources list.
#
# Idempotent: a second run only checks and prints "up to date" (well under 2 s).
#
# Usage: scripts/setup-deps.sh [--skip-apt] [--skip-kokkos] [--force-kokkos]
# Environment: PCOLL_JOBS (build parallelism, default: nproc),
#              PCOLL_DEBIAN_MIRROR (deb-src mirror, default: derived from apt config)
set -Eeuo pipefail

# shellcheck source-path=SCRIPTDIR source=lib/common.sh
source "$(dirname -- "${BASH_SOURCE[0]}")/lib/common.sh"
# shellcheck disable=SC2034  # read by pcoll_msg / pcoll_die
PCOLL_LOG_TAG="pcoll setup"

# ---------------------------------------------------------------------------
# Pinned versions
# ---------------------------------------------------------------------------
TRILINOS_DEB_VERSION="13.2.0-4"          # Debian 12 (bookworm) trilinos source
TRILINOS_DEB_SUITE="bookworm"
TRILINOS_UPSTREAM_VERSION="${TRILINOS_DEB_VERSION%-*}"
TRILINOS_ORIG_TARBALL="trilinos_${TRILINOS_UPSTREAM_VERSION}.orig.tar.gz"
TRILINOS_DEBIAN_TARBALL="trilinos_${TRILINOS_DEB_VERSION}.debian.tar.xz"
# sha256 as listed in bookworm's Sources index (checked before every build).
TRILINOS_ORIG_SHA256="0ddb47784ba7b8a6b9a07a4822b33be508feb4ccd54301b2a5d10c9e54524b90"
TRILINOS_DEBIAN_SHA256="d9695ad1ab0de34eaf5ae085b1052c959f36d1ce0e078775249f4d4f7918be5b"
KOKKOS_EXPECTED_VERSION="3.4.01"         # what trilinos 13.2.0 ships

APT_PACKAGES=(
    build-essential cmake pkg-config git
    openmpi-bin libopenmpi-dev libhdf5-openmpi-dev hdf5-tools
    catch2 libfftw3-dev libfftw3-mpi-dev libtomlplusplus-dev libcli11-dev
    python3-h5py python3-matplotlib python3-numpy
    dpkg-dev clang-format
    libsimgrid-dev
    gfortran python3-mpi4py
    mpich libmpich-dev libhdf5-mpich-dev
)

# ---------------------------------------------------------------------------
# Arguments
# ---------------------------------------------------------------------------
do_apt=1
do_kokkos=1
force_kokkos=0
for arg in "$@"; do
    case "${arg}" in
        --skip-apt) do_apt=0 ;;
        --skip-kokkos) do_kokkos=0 ;;
        --force-kokkos) force_kokkos=1 ;;
        -h|--help) sed -n '2,15p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) pcoll_die "unknown argument: ${arg} (see --help)" ;;
    esac
done

REPO_ROOT="$(pcoll_repo_root)"
DEPS_DIR="${REPO_ROOT}/.deps"
SRC_CACHE="${DEPS_DIR}/src"
KOKKOS_PREFIX="${DEPS_DIR}/kokkos"
KOKKOS_STAMP="${KOKKOS_PREFIX}/.pcoll-kokkos-stamp"
KOKKOS_WORK="${DEPS_DIR}/build/kokkos"

TMPDIR_SETUP=""
cleanup() {
    if [[ -n "${TMPDIR_SETUP}" && -d "${TMPDIR_SETUP}" ]]; then
        rm -rf -- "${TMPDIR_SETUP}"
    fi
}
trap cleanup EXIT
trap 'pcoll_msg "error: failed at line ${LINENO}: ${BASH_COMMAND}"' ERR

setup_tmpdir() {
    if [[ -z "${TMPDIR_SETUP}" ]]; then
        TMPDIR_SETUP="$(mktemp -d "${TMPDIR:-/tmp}/pcoll-setup.XXXXXX")"
    fi
}

# Run a command as root (directly, or through sudo when not root).
as_root() {
    if [[ "$(id -u)" -eq 0 ]]; then
        "$@"
    else
        sudo "$@"
    fi
}

# ---------------------------------------------------------------------------
# 1. Debian packages
# ---------------------------------------------------------------------------
# Print the packages among "$@" that are not fully installed (one dpkg-query
# call for all of them; a package dpkg does not know is simply not listed).
missing_packages() {
    local -A ok=()
    local pkg status p
    while IFS=$'\t' read -r pkg status; do
        [[ "${status}" == *" ok installed" ]] && ok["${pkg%%:*}"]=1
    done < <(dpkg-query -W -f='${Package}\t${Status}\n' "$@" 2>/dev/null || true)
    for p in "$@"; do
        [[ -n "${ok[${p}]:-}" ]] || printf '%s\n' "${p}"
    done
}

install_apt_packages() {
    local missing=() still=()
    mapfile -t missing < <(missing_packages "${APT_PACKAGES[@]}")
    if [[ ${#missing[@]} -eq 0 ]]; then
        pcoll_msg "apt packages: all ${#APT_PACKAGES[@]} up to date"
        return 0
    fi
    pcoll_msg "apt packages missing: ${missing[*]}"
    if [[ "$(id -u)" -ne 0 ]] && ! command -v sudo >/dev/null 2>&1; then
        pcoll_die "not root and sudo is not available; as root run:
  apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends ${missing[*]}"
    fi
    pcoll_msg "running apt-get update"
    as_root apt-get update -q >&2 \
        || pcoll_die "apt-get update failed; needed packages: ${missing[*]}"
    pcoll_msg "installing: ${missing[*]}"
    as_root env DEBIAN_FRONTEND=noninteractive \
        apt-get install -y -q --no-install-recommends "${missing[@]}" >&2 \
        || pcoll_die "apt-get install failed; needed packages: ${missing[*]}"
    mapfile -t still < <(missing_packages "${missing[@]}")
    [[ ${#still[@]} -eq 0 ]] || pcoll_die "still not installed after apt-get install: ${still[*]}"
}

# ---------------------------------------------------------------------------
# 2. Kokkos from Debian's trilinos source package
# ---------------------------------------------------------------------------
KOKKOS_CMAKE_FLAGS=(
    -DCMAKE_BUILD_TYPE=Release
    -DKokkos_ENABLE_OPENMP=ON
    -DKokkos_ENABLE_SERIAL=ON
    -DCMAKE_POSITION_INDEPENDENT_CODE=ON
    -DCMAKE_CXX_STANDARD=17
    -DCMAKE_CXX_EXTENSIONS=OFF
    -DCMAKE_INSTALL_LIBDIR=lib
    -DKokkos_ENABLE_TESTS=OFF
    -DKokkos_ENABLE_EXAMPLES=OFF
)

# Everything that determines the installed Kokkos; a change triggers a rebuild.
kokkos_stamp_content() {
    local cxx="${CXX:-c++}"
    printf 'trilinos=%s\n' "${TRILINOS_DEB_VERSION}"
    printf 'prefix=%s\n' "${KOKKOS_PREFIX}"
    printf 'flags=%s\n' "${KOKKOS_CMAKE_FLAGS[*]}"
    printf 'cxx=%s\n' "$(command -v "${cxx}" 2>/dev/null || echo "${cxx}")"
    printf 'cxx_version=%s\n' "$("${cxx}" --version 2>/dev/null | head -n1 || true)"
}

kokkos_up_to_date() {
    [[ -f "${KOKKOS_STAMP}" ]] || return 1
    [[ -f "${KOKKOS_PREFIX}/lib/cmake/Kokkos/KokkosConfig.cmake" ]] || return 1
    [[ "$(cat "${KOKKOS_STAMP}")" == "$(kokkos_stamp_content)" ]]
}

# Print the Debian mirror URI to fetch deb-src from: $PCOLL_DEBIAN_MIRROR, else
# the first apt source (one-line or deb822) serving a plain Debian release
# suite, else deb.debian.org.
debian_mirror() {
    if [[ -n "${PCOLL_DEBIAN_MIRROR:-}" ]]; then
        printf '%s\n' "${PCOLL_DEBIAN_MIRROR%/}"
        return
    fi
    local codename="" f uri=""
    if [[ -r /etc/os-release ]]; then
        codename="$(. /etc/os-release && printf '%s' "${VERSION_CODENAME:-}")"
    fi
    local suites_re="^(${TRILINOS_DEB_SUITE}${codename:+|${codename}}|stable|oldstable|testing|unstable|sid)$"
    local files=()
    [[ -f /etc/apt/sources.list ]] && files+=(/etc/apt/sources.list)
    for f in /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources; do
        [[ -f "${f}" ]] && files+=("${f}")
    done
    for f in "${files[@]+"${files[@]}"}"; do
        if [[ "${f}" == *.sources ]]; then
            # deb822: paragraphs separated by blank lines.
            uri="$(awk -v re="${suites_re}" '
                function flush() {
                    if (enabled && uris != "" && match_suite) { split(uris, u, " "); print u[1]; found = 1; exit }
                    uris = ""; match_suite = 0; enabled = 1
                }
                BEGIN { enabled = 1 }
                /^[[:space:]]*#/ { next }
                /^[[:space:]]*$/ { flush(); next }
                tolower($1) == "uris:" { $1 = ""; uris = $0; sub(/^ +/, "", uris) }
                tolower($1) == "suites:" { for (i = 2; i <= NF; i++) if ($i ~ re) match_suite = 1 }
                tolower($1) == "enabled:" { if (tolower($2) == "no") enabled = 0 }
                END { if (!found) flush() }' "${f}")"
        else
            # one-line: deb [opts] uri suite components...
            uri="$(awk -v re="${suites_re}" '
                $1 == "deb" || $1 == "deb-src" {
                    i = 2
                    if ($i ~ /^\[/) { while (i <= NF && $i !~ /\]$/) i++; i++ }
                    if ($(i + 1) ~ re) { print $i; exit }
                }' "${f}")"
        fi
        if [[ "${uri}" == http://* || "${uri}" == https://* ]]; then
            printf '%s\n' "${uri%/}"
            return
        fi
    done
    printf '%s\n' "http://deb.debian.org/debian"
}

sha256_ok() { # file expected
    [[ -f "$1" ]] && [[ "$(sha256sum "$1" | cut -d' ' -f1)" == "$2" ]]
}

fetch_trilinos_source() {
    mkdir -p "${SRC_CACHE}"
    if sha256_ok "${SRC_CACHE}/${TRILINOS_ORIG_TARBALL}" "${TRILINOS_ORIG_SHA256}" \
        && sha256_ok "${SRC_CACHE}/${TRILINOS_DEBIAN_TARBALL}" "${TRILINOS_DEBIAN_SHA256}"; then
        pcoll_msg "trilinos ${TRILINOS_DEB_VERSION} source: cached in ${SRC_CACHE}"
        return 0
    fi
    setup_tmpdir
    local mirror apt_dir keyring opts=()
    mirror="$(debian_mirror)"
    apt_dir="${TMPDIR_SETUP}/apt"
    mkdir -p "${apt_dir}/lists/partial" "${apt_dir}/cache/archives/partial"
    keyring=""
    if [[ -r /usr/share/keyrings/debian-archive-keyring.gpg ]]; then
        keyring="[signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] "
    fi
    printf 'deb-src %s%s %s main\n' "${keyring}" "${mirror}" "${TRILINOS_DEB_SUITE}" \
        >"${apt_dir}/sources.list"
    # Private apt state: the system's sources, lists and caches stay untouched.
    opts=(
        -o "Dir::Etc::SourceList=${apt_dir}/sources.list"
        -o "Dir::Etc::SourceParts=/dev/null"
        -o "Dir::State::Lists=${apt_dir}/lists"
        -o "Dir::Cache=${apt_dir}/cache"
        -o "Dir::Cache::pkgcache="
        -o "Dir::Cache::srcpkgcache="
        -o "Acquire::Languages=none"
        -q
    )
    if [[ "$(id -u)" -eq 0 ]]; then
        opts+=(-o "APT::Sandbox::User=root")
    fi
    pcoll_msg "fetching Sources index for ${TRILINOS_DEB_SUITE} from ${mirror}"
    apt-get "${opts[@]}" update >"${TMPDIR_SETUP}/apt-update.log" 2>&1 || {
        cat "${TMPDIR_SETUP}/apt-update.log" >&2
        pcoll_die "apt-get update (private deb-src list for ${mirror} ${TRILINOS_DEB_SUITE}) failed"
    }
    pcoll_msg "downloading trilinos=${TRILINOS_DEB_VERSION} source package (~166 MB) into ${SRC_CACHE}"
    (cd "${SRC_CACHE}" && apt-get "${opts[@]}" source --download-only "trilinos=${TRILINOS_DEB_VERSION}") \
        >"${TMPDIR_SETUP}/apt-source.log" 2>&1 || {
        cat "${TMPDIR_SETUP}/apt-source.log" >&2
        pcoll_die "apt-get source trilinos=${TRILINOS_DEB_VERSION} failed (is it still in ${TRILINOS_DEB_SUITE} on ${mirror}?)"
    }
    sha256_ok "${SRC_CACHE}/${TRILINOS_ORIG_TARBALL}" "${TRILINOS_ORIG_SHA256}" \
        || pcoll_die "sha256 mismatch for ${SRC_CACHE}/${TRILINOS_ORIG_TARBALL}"
    sha256_ok "${SRC_CACHE}/${TRILINOS_DEBIAN_TARBALL}" "${TRILINOS_DEBIAN_SHA256}" \
        || pcoll_die "sha256 mismatch for ${SRC_CACHE}/${TRILINOS_DEBIAN_TARBALL}"
}

# Reduce a patch (stdin) to the file sections under packages/kokkos/.
filter_patch_to_kokkos() {
    awk -v pfx="packages/kokkos/" '
        function under(path) {
            sub(/\t.*$/, "", path); sub(/^[ab]\//, "", path)
            return index(path, pfx) == 1
        }
        /^diff / { hdr = $0; inhdr = 1; keep = 0; next }
        /^--- / {
            minus = $0
            if ((getline nxt) > 0 && nxt ~ /^\+\+\+ /) {
                path = nxt; sub(/^\+\+\+ /, "", path)
                if (path ~ /^\/dev\/null/) { path = minus; sub(/^--- /, "", path) }
                keep = under(path)
                if (keep) { if (inhdr) print hdr; print minus; print nxt }
                inhdr = 0
                next
            }
            if (keep) { print minus; print nxt }
            next
        }
        inhdr { hdr = hdr "\n" $0; next }
        keep { print }
    '
}

# Extract packages/kokkos and apply the Debian patches that touch it.
prepare_kokkos_source() {
    local srcroot="${KOKKOS_WORK}/trilinos"
    rm -rf -- "${KOKKOS_WORK}"
    mkdir -p "${srcroot}"
    pcoll_msg "extracting packages/kokkos from ${TRILINOS_ORIG_TARBALL}"
    tar -xzf "${SRC_CACHE}/${TRILINOS_ORIG_TARBALL}" -C "${srcroot}" \
        --strip-components=1 --wildcards '*/packages/kokkos/*'
    [[ -f "${srcroot}/packages/kokkos/CMakeLists.txt" ]] \
        || pcoll_die "packages/kokkos not found in ${TRILINOS_ORIG_TARBALL}"

    local debdir="${KOKKOS_WORK}/debian-tar" p filtered n_applied=0
    mkdir -p "${debdir}"
    tar -xJf "${SRC_CACHE}/${TRILINOS_DEBIAN_TARBALL}" -C "${debdir}" debian/patches
    if [[ -f "${debdir}/debian/patches/series" ]]; then
        while read -r p _; do
            [[ -z "${p}" || "${p}" == \#* ]] && continue
            filtered="${KOKKOS_WORK}/${p##*/}.kokkos"
            filter_patch_to_kokkos <"${debdir}/debian/patches/${p}" >"${filtered}"
            [[ -s "${filtered}" ]] || continue
            pcoll_msg "applying Debian patch ${p} (packages/kokkos part)"
            patch -d "${srcroot}" -p1 --batch --forward --quiet <"${filtered}" \
                || pcoll_die "Debian patch ${p} does not apply to packages/kokkos"
            n_applied=$((n_applied + 1))
        done <"${debdir}/debian/patches/series"
    fi
    pcoll_msg "applied ${n_applied} Debian patch(es) to packages/kokkos"
}

kokkos_version_of_prefix() {
    local cfgv="${KOKKOS_PREFIX}/lib/cmake/Kokkos/KokkosConfigVersion.cmake"
    if [[ -f "${cfgv}" ]]; then
        sed -n 's/^set(PACKAGE_VERSION "\([^"]*\)").*/\1/p' "${cfgv}" | head -n1
    fi
}

kokkos_backends_of_prefix() {
    local hdr="${KOKKOS_PREFIX}/include/KokkosCore_config.h" b=()
    [[ -f "${hdr}" ]] || return 0
    grep -q '^#define KOKKOS_ENABLE_OPENMP' "${hdr}" && b+=(OpenMP)
    grep -q '^#define KOKKOS_ENABLE_SERIAL' "${hdr}" && b+=(Serial)
    grep -q '^#define KOKKOS_ENABLE_THREADS' "${hdr}" && b+=(Threads)
    grep -q '^#define KOKKOS_ENABLE_CUDA' "${hdr}" && b+=(CUDA)
    printf '%s\n' "${b[*]}"
}

report_kokkos() {
    pcoll_msg "Kokkos $(kokkos_version_of_prefix) (from Debian trilinos ${TRILINOS_DEB_VERSION}), backends: $(kokkos_backends_of_prefix), prefix: ${KOKKOS_PREFIX}"
}

build_kokkos() {
    mkdir -p "${DEPS_DIR}"
    # Serialise concurrent setup runs on the same checkout.
    exec 9>"${DEPS_DIR}/.setup.lock"
    flock 9

    if [[ ${force_kokkos} -eq 0 ]] && kokkos_up_to_date; then
        pcoll_msg "kokkos: up to date"
        report_kokkos
        return 0
    fi
    local t0=${SECONDS}
    fetch_trilinos_source
    prepare_kokkos_source

    local src="${KOKKOS_WORK}/trilinos/packages/kokkos" bld="${KOKKOS_WORK}/build" jobs
    jobs="$(pcoll_jobs)"
    pcoll_msg "configuring Kokkos (${KOKKOS_CMAKE_FLAGS[*]})"
    cmake -S "${src}" -B "${bld}" "${KOKKOS_CMAKE_FLAGS[@]}" \
        -DCMAKE_INSTALL_PREFIX="${KOKKOS_PREFIX}" >"${KOKKOS_WORK}/configure.log" 2>&1 || {
        tail -n 40 "${KOKKOS_WORK}/configure.log" >&2
        pcoll_die "Kokkos configure failed (full log: ${KOKKOS_WORK}/configure.log)"
    }
    pcoll_msg "building Kokkos with ${jobs} jobs"
    cmake --build "${bld}" -j "${jobs}" >"${KOKKOS_WORK}/build.log" 2>&1 || {
        tail -n 40 "${KOKKOS_WORK}/build.log" >&2
        pcoll_die "Kokkos build failed (full log: ${KOKKOS_WORK}/build.log)"
    }
    pcoll_msg "installing Kokkos into ${KOKKOS_PREFIX}"
    rm -rf -- "${KOKKOS_PREFIX}"
    cmake --install "${bld}" >"${KOKKOS_WORK}/install.log" 2>&1 || {
        tail -n 40 "${KOKKOS_WORK}/install.log" >&2
        pcoll_die "Kokkos install failed (full log: ${KOKKOS_WORK}/install.log)"
    }
    [[ -f "${KOKKOS_PREFIX}/lib/cmake/Kokkos/KokkosConfig.cmake" ]] \
        || pcoll_die "Kokkos install lacks lib/cmake/Kokkos/KokkosConfig.cmake"
    local v
    v="$(kokkos_version_of_prefix)"
    if [[ "${v}" != "${KOKKOS_EXPECTED_VERSION}" ]]; then
        pcoll_msg "warning: installed Kokkos ${v}, expected ${KOKKOS_EXPECTED_VERSION}"
    fi
    kokkos_stamp_content >"${KOKKOS_STAMP}"
    rm -rf -- "${KOKKOS_WORK}"
    rmdir "${DEPS_DIR}/build" 2>/dev/null || true
    pcoll_msg "kokkos: built and installed in $((SECONDS - t0)) s"
    report_kokkos
}

# ---------------------------------------------------------------------------
if [[ ${do_apt} -eq 1 ]]; then
    install_apt_packages
fi
if [[ ${do_kokkos} -eq 1 ]]; then
    build_kokkos
fi
pcoll_msg "done"
