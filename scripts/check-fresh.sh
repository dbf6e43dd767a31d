#!/usr/bin/env bash
# README's two commands on a fresh Debian 12 machine, here: builds a clean Debian 12 (bookworm)
# root with debootstrap (minbase: what a minimal install has, no compiler, no MPI, no Python
# packages), puts a clean clone of this repository's HEAD into it at /root/pcoll, and runs
# scripts/demo.sh, then scripts/test.sh there through chroot with an empty environment, timing
# each. Run it on any change to set-up or entry scripts (scripts/setup-deps.sh, demo.sh, test.sh,
# build.sh, scripts/lib/, CMake's find logic): a green run on a machine that already has the
# packages can hide a missing install step.
#
#   scripts/check-fresh.sh [options] [-- test.sh arguments...]
#     --root DIR      the fresh root (default /var/tmp/pcoll-fresh); removed and rebuilt first
#                     unless --reuse
#     --reuse         keep DIR's Debian as it is (packages installed by an earlier run stay: a
#                     quicker rerun, no longer a fresh machine) and only replace /root/pcoll
#     --keep          leave DIR in place afterwards (default: removed when both commands pass)
#     --worktree      the clone gets this checkout's uncommitted changes too (tracked and
#                     untracked files git does not ignore); default: HEAD only, as CI sees it
#     --only demo|test  run one of the two commands
#     --shell CMD     run CMD (bash -c, in /root/pcoll) in the root instead of the two commands
#   Environment: PCOLL_DEBIAN_MIRROR (default http://deb.debian.org/debian),
#                PCOLL_DEBOOTSTRAP_CACHE (downloaded .debs, default /var/cache/pcoll-debootstrap)
#
# Needs root (debootstrap, mount, chroot) and Debian's archive; installs debootstrap if missing.
# Logs: DIR.logs/{debootstrap,demo,test}.log; a summary with the times is printed at the end and
# kept in DIR.logs/summary.txt. Exit status: 0 when every command run passed.
set -Eeuo pipefail

# shellcheck source-path=SCRIPTDIR source=lib/common.sh
source "$(dirname -- "${BASH_SOURCE[0]}")/lib/common.sh"
# shellcheck disable=SC2034  # read by pcoll_msg / pcoll_die
PCOLL_LOG_TAG="pcoll check-fresh"

root_dir=/var/tmp/pcoll-fresh
reuse=0
keep=0
worktree=0
only=""
shell_cmd=""
test_args=()
while [[ $# -gt 0 ]]; do
    case "$1" in
        --root) root_dir="${2:?--root needs a directory}"; shift ;;
        --reuse) reuse=1 ;;
        --keep) keep=1 ;;
        --worktree) worktree=1 ;;
        --only)
            only="${2:?--only needs demo or test}"; shift
            [[ "${only}" == demo || "${only}" == test ]] || pcoll_die "--only takes demo or test, not '${only}'"
            ;;
        --shell) shell_cmd="${2:?--shell needs a command}"; shift ;;
        --) shift; test_args=("$@"); break ;;
        -h|--help) sed -n '2,/^set -E/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
        *) pcoll_die "unknown argument '$1' (see --help)" ;;
    esac
    shift
done

[[ "$(id -u)" -eq 0 ]] || pcoll_die "needs root (debootstrap, mount, chroot)"
root_dir="$(realpath -m -- "${root_dir}")"
case "${root_dir}" in
    /|/root|/home|/usr|/var|/var/tmp|/tmp|/work) pcoll_die "refusing --root ${root_dir}" ;;
esac
repo="$(pcoll_repo_root)"
logs="${root_dir}.logs"
mirror="${PCOLL_DEBIAN_MIRROR:-http://deb.debian.org/debian}"
cache="${PCOLL_DEBOOTSTRAP_CACHE:-/var/cache/pcoll-debootstrap}"
mkdir -p "${logs}" "${cache}"
summary=()

# Anything still mounted below the root? (Never remove a root with /dev or /proc bound in.)
mounted_below() {
    awk -v r="${root_dir}/" 'index($2 "/", r) == 1 { print $2 }' /proc/self/mounts
}
unmount_all() {
    local m
    # Deepest first.
    while read -r m; do
        [[ -n "${m}" ]] && umount -l "${m}" 2>/dev/null || true
    done < <(mounted_below | awk '{ print length($0) " " $0 }' | sort -rn | cut -d' ' -f2-)
}
remove_root() {
    unmount_all
    if [[ -n "$(mounted_below)" ]]; then
        pcoll_die "still mounted below ${root_dir}, not removing it: $(mounted_below | paste -sd' ')"
    fi
    rm -rf --one-file-system -- "${root_dir}"
}
trap unmount_all EXIT

if ! command -v debootstrap >/dev/null 2>&1; then
    pcoll_msg "installing debootstrap"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends debootstrap >&2 ||
        { apt-get update -q >&2 && DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends debootstrap >&2; } ||
        pcoll_die "could not install debootstrap"
fi

t0=$(date +%s)
if [[ ${reuse} -eq 1 && -x "${root_dir}/bin/bash" ]]; then
    pcoll_msg "reusing the Debian in ${root_dir} (--reuse: not a fresh machine any more)"
else
    [[ -e "${root_dir}" ]] && remove_root
    pcoll_msg "debootstrap bookworm (minbase) into ${root_dir} from ${mirror} (log: ${logs}/debootstrap.log)"
    debootstrap --variant=minbase --cache-dir="${cache}" bookworm "${root_dir}" "${mirror}" \
        >"${logs}/debootstrap.log" 2>&1 || { tail -n 20 "${logs}/debootstrap.log" >&2; pcoll_die "debootstrap failed"; }
    # What a Debian 12 install's sources hold: the release, its updates and security.
    security="${mirror%/debian}/debian-security"
    cat >"${root_dir}/etc/apt/sources.list" <<EOF
deb ${mirror} bookworm main
deb ${mirror} bookworm-updates main
deb ${security} bookworm-security main
EOF
    # git, as on any machine a clone was made on (the clone itself is made here, outside).
    chroot "${root_dir}" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin DEBIAN_FRONTEND=noninteractive \
        bash -c 'apt-get update -q && apt-get install -y -q --no-install-recommends git ca-certificates' \
        >>"${logs}/debootstrap.log" 2>&1 || { tail -n 20 "${logs}/debootstrap.log" >&2; pcoll_die "installing git in the root failed"; }
    apt-get -o Dir="${root_dir}" clean 2>/dev/null || true
fi
summary+=("root: $(( $(date +%s) - t0 )) s (${root_dir})")
cp -L /etc/resolv.conf "${root_dir}/etc/resolv.conf" 2>/dev/null || true
grep -q "$(hostname)" "${root_dir}/etc/hosts" 2>/dev/null ||
    printf '127.0.1.1 %s\n' "$(hostname)" >>"${root_dir}/etc/hosts"

# A clean clone of HEAD (what CI checks out), plus the uncommitted files with --worktree.
dest="${root_dir}/root/pcoll"
rm -rf --one-file-system -- "${dest}"
git clone -q --no-local --no-hardlinks "${repo}" "${dest}"
commit="$(git -C "${dest}" rev-parse --short HEAD)"
if [[ ${worktree} -eq 1 ]]; then
    (cd "${repo}" && git ls-files -z --cached --others --exclude-standard |
        tar --null --ignore-failed-read -T - -cf - 2>/dev/null) | tar -xf - -C "${dest}"
    summary+=("clone: ${commit} + this checkout's uncommitted changes")
else
    summary+=("clone: ${commit} (HEAD; uncommitted changes not included)")
fi

mount -t proc proc "${root_dir}/proc"
mount -t sysfs sys "${root_dir}/sys"
mount --bind /dev "${root_dir}/dev"
mount -t devpts -o newinstance,ptmxmode=0666 devpts "${root_dir}/dev/pts" 2>/dev/null ||
    mount --bind /dev/pts "${root_dir}/dev/pts"
mount -t tmpfs -o size=50% tmpfs "${root_dir}/dev/shm"

in_root() {
    chroot "${root_dir}" /usr/bin/env -i HOME=/root USER=root LOGNAME=root SHELL=/bin/bash \
        TERM=dumb LANG=C.UTF-8 PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
        bash -c "cd /root/pcoll && $1"
}

status=0
# run NAME COMMAND: one of README's commands in the root, timed, its output in the log and on
# stdout.
run() {
    local name="$1" cmd="$2" t rc
    pcoll_msg "in the root: ${cmd} (log: ${logs}/${name}.log)"
    t=$(date +%s)
    set +e
    in_root "${cmd}" 2>&1 | tee "${logs}/${name}.log"
    rc=${PIPESTATUS[0]}
    set -e
    t=$(( $(date +%s) - t ))
    summary+=("${cmd}: rc ${rc}, $(( t / 60 ))m$(( t % 60 ))s")
    [[ ${rc} -eq 0 ]] || status=1
}

if [[ -n "${shell_cmd}" ]]; then
    run shell "${shell_cmd}"
else
    [[ -z "${only}" || "${only}" == demo ]] && run demo "scripts/demo.sh"
    if [[ -z "${only}" || "${only}" == test ]]; then
        run test "scripts/test.sh${test_args[*]+ $(printf '%q ' "${test_args[@]}")}"
    fi
fi

unmount_all
{
    printf 'check-fresh: Debian 12 (debootstrap minbase, %s), %s cores, %s\n' "${mirror}" "$(nproc)" "$(date -u +%FT%TZ)"
    printf '  %s\n' "${summary[@]}"
} | tee "${logs}/summary.txt"
if [[ ${status} -eq 0 && ${keep} -eq 0 && ${reuse} -eq 0 ]]; then
    remove_root
    pcoll_msg "removed ${root_dir} (--keep leaves it)"
fi
exit "${status}"
