# shellcheck shell=bash
# A pristine minimal Debian 12 root (debootstrap --variant=minbase, cached as a tarball) and a way to run
# commands in it as on a booted machine. Sourced (bash) by tests/fresh-machine.sh and tests/deb-fresh-root.sh;
# docs/testing.md, "A fresh machine". Needs root and what `tests/install-deps.sh --fresh-machine` installs.
#
# Cache (kept between runs, delete it to start over): /var/cache/husk-fresh-machine, holding the pristine
# minbase root as a tarball and the .deb files apt downloads in a root.
fresh_cache=/var/cache/husk-fresh-machine

# fresh_start NAME [--keep] [--commit REV]: how both scripts start ($top is the checkout). Sets $keep, and
# $commit to the full hash of REV (default HEAD: uncommitted changes are not tested); checks for root;
# installs the host's tools (the roots get nothing from the host); makes $work, a scratch directory in
# /var/tmp that goes on exit, with whatever runs in a root (fresh_root_kill), unless --keep.
fresh_name=
fresh_die() { echo "$fresh_name: $*" >&2; exit 2; }
fresh_usage() { echo "usage: $0 [--keep] [--commit REV]" >&2; exit 2; }
fresh_start() {
    fresh_name=$1
    shift
    keep='' commit=HEAD work=''
    while [ $# -gt 0 ]; do
        case $1 in
            --keep) keep=1; shift ;;
            --commit) [ $# -ge 2 ] || fresh_usage; commit=$2; shift 2 ;;
            *) fresh_usage ;;
        esac
    done
    [ "$(id -u)" = 0 ] || fresh_die "run as root"
    # shellcheck disable=SC2154 # ($top: the checkout, set by the sourcing script)
    "$top/tests/install-deps.sh" --fresh-machine
    commit=$(git -C "$top" rev-parse --verify "$commit^{commit}") || fresh_die "no commit $commit in $top"
    trap fresh_cleanup EXIT
    trap 'exit 130' INT
    trap 'exit 143' TERM
    work=$(mktemp -d "/var/tmp/husk-$fresh_name.XXXXXX")
}
# shellcheck disable=SC2317 # (called by the traps)
fresh_cleanup() {
    trap - EXIT INT TERM
    # Killing the namespace's init kills every process in the pid namespace; the mounts go with it.
    fresh_root_kill
    if [ -n "$work" ]; then
        # Nothing is mounted below $work on the host's side (the mounts were made in the namespaces);
        # --one-file-system is the safety net should that ever be wrong.
        if [ -n "$keep" ]; then echo "$fresh_name: kept $work" >&2
        else rm -rf --one-file-system -- "$work"; fi
    fi
}

# The Debian mirror configured on this machine: the first source for bookworm, in either the deb822
# (*.sources) or the one-line (*.list) format. $HUSK_FRESH_MIRROR overrides it.
fresh_find_mirror() {
    local file
    for file in /etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources; do
        [ -f "$file" ] || continue
        awk '
            /^[ \t]*deb[ \t]/ {
                for (i = 2; i <= NF; i++) if ($i !~ /^\[/ && $i !~ /\]$/) break
                if ($(i + 1) == "bookworm") { print $i; exit }
            }
            /^URIs:/ { uri = $2 }
            /^Suites:/ { for (i = 2; i <= NF; i++) if ($i == "bookworm") found = 1 }
            /^[ \t]*$/ { if (found && uri != "") { print uri; exit } uri = ""; found = 0 }
            END { if (found && uri != "") print uri }
        ' "$file" | head -n 1
    done | head -n 1
}

# fresh_root_unpack WORK ROOT: unpacks the pristine minbase root into ROOT (which must not exist), with the
# host's resolv.conf. The first time, it makes the tarball with debootstrap in WORK (a scratch directory).
# Prints why and returns 1 when it cannot.
fresh_root_unpack() {
    local work=$1 root=$2 tarball=$fresh_cache/bookworm-minbase.tar mirror
    mkdir -p "$fresh_cache/archives/partial"
    if [ ! -f "$tarball" ]; then
        mirror=${HUSK_FRESH_MIRROR:-$(fresh_find_mirror)}
        [ -n "$mirror" ] || { echo "no bookworm source in /etc/apt/sources.list*: set HUSK_FRESH_MIRROR" >&2; return 1; }
        echo "debootstrap --variant=minbase bookworm from $mirror (once; cached in $tarball)" >&2
        debootstrap --variant=minbase bookworm "$work/bootstrap" "$mirror" > "$work/debootstrap.log" 2>&1 ||
            { tail -n 20 "$work/debootstrap.log" >&2; echo "debootstrap failed" >&2; return 1; }
        rm -f -- "$work/bootstrap/var/cache/apt/archives/"*.deb
        if ! tar -C "$work/bootstrap" --numeric-owner --xattrs -cf "$tarball.new.$$" .; then
            rm -f -- "$tarball.new.$$"
            return 1
        fi
        mv -f -- "$tarball.new.$$" "$tarball"
        rm -rf --one-file-system -- "$work/bootstrap"
    fi
    mkdir -m 0755 -- "$root" || return 1
    tar -C "$root" --numeric-owner --xattrs -xpf "$tarball" || return 1
    cp -- /etc/resolv.conf "$root/etc/resolv.conf"
}

# fresh_root_enter ROOT ARCHIVES COMMAND...: runs COMMAND (a path inside ROOT, with its arguments) in ROOT, in
# the background, as a child of the pid 1 of new mount and pid namespaces, with what a booted machine has
# mounted; ARCHIVES (a host directory) is apt's download cache there. Its exit status is the command's;
# fresh_ns_pid is the namespace's pid on the host: killing it ends every process of the run (containers and
# qemu included) and the namespace's mounts with it. Wait for it with fresh_root_wait.
#
# The root is entered with pivot_root, not with chroot: the kernel refuses user namespaces to a chrooted
# process, and husk needs them. cgroups: only the host's cgroup2 (unified) hierarchy is bound, at the same
# place; the host's v1 hierarchies are not there at all, so nothing inside can write them. The cache itself
# is bound at the same place, so a fresh root test run inside (tests/run.sh in tests/fresh-machine.sh) finds
# the tarball there.
fresh_ns_pid=
fresh_root_enter() {
    local root=$1 archives=$2
    shift 2
    # unshare --kill-child: should the calling script die, its child (the namespace's init) is killed as well.
    # shellcheck disable=SC2016 # (expanded by the inner bash)
    env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin TERM="${TERM:-dumb}" ${CI:+CI=$CI} \
        unshare --mount --pid --fork --kill-child -- bash -c '
set -eu
root=$1 cache=$2 archives=$3
shift 3
mount --make-rprivate /
mount --bind "$root" "$root"
mount -t proc -o nosuid,nodev,noexec proc "$root/proc"
mount -t sysfs -o nosuid,nodev,noexec sysfs "$root/sys"
mount -t tmpfs -o nosuid,nodev,noexec,mode=0755 cgroup "$root/sys/fs/cgroup"
if [ "$(stat -f -c %T /sys/fs/cgroup)" = cgroup2fs ]; then v2=/sys/fs/cgroup; else v2=/sys/fs/cgroup/unified; fi
mkdir -p "$root/$v2"
mount --bind "$v2" "$root/$v2"
mount --rbind /dev "$root/dev"
mount -t tmpfs -o nosuid,nodev,mode=0755 tmpfs "$root/run"
# The downloaded .deb files are kept between runs (it is still apt, inside, that installs them).
mount --bind "$archives" "$root/var/cache/apt/archives"
mkdir -p "$root/$cache"
mount --bind "$cache" "$root/$cache"
cd "$root"
mkdir -p .old-root
pivot_root . .old-root
umount -l /.old-root
rmdir /.old-root
cd /
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LC_ALL=C.UTF-8
"$@"
' fresh-root "$root" "$fresh_cache" "$archives" "$@" &
    fresh_ns_pid=$!
}

# fresh_root_wait: waits for the command of fresh_root_enter and returns its exit status.
fresh_root_wait() {
    local status=0
    wait "$fresh_ns_pid" || status=$?
    fresh_ns_pid=
    return "$status"
}

# fresh_root_kill: ends the run of fresh_root_enter, if any (every process in it, every mount of it).
fresh_root_kill() {
    if [ -n "$fresh_ns_pid" ]; then
        kill -KILL "$fresh_ns_pid" 2>/dev/null || true
        wait "$fresh_ns_pid" 2>/dev/null || true
        fresh_ns_pid=
    fi
}
