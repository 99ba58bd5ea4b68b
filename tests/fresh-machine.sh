#!/bin/bash
# Runs README's two commands (bundles/demo.sh, tests/run.sh) on a truly fresh minimal Debian 12: a
# debootstrap --variant=minbase root holding a clean `git clone` of the commit under test. The machine
# you develop on hides missing install steps; this does not. See docs/testing.md.
#   tests/fresh-machine.sh [--keep] [--commit REV]
# --keep        leave the root (printed) for a look afterwards; it is removed otherwise
# --commit REV  the commit to test (default HEAD of this tree; uncommitted changes are not tested)
# Exit status: 0 when both commands exit 0, 1 when either fails, 2 on a usage or set-up error.
#
# The root is entered with pivot_root in private mount and pid namespaces, not with chroot: the kernel
# refuses user namespaces to a chrooted process, and husk needs them. Everything the run makes goes
# when it ends, even on failure: the pid namespace dies with its init (so every process in it,
# containers and qemu included), its mounts die with the mount namespace, and the root is deleted.
# Cache (kept between runs, delete it to start over): /var/cache/husk-fresh-machine, holding the
# pristine minbase root as a tarball and the .deb files apt downloads.
set -euo pipefail

die() { echo "fresh-machine: $*" >&2; exit 2; }
usage() { echo "usage: $0 [--keep] [--commit REV]" >&2; exit 2; }
top=$(cd "$(dirname "$0")/.." && pwd)
keep=
commit=HEAD
while [ $# -gt 0 ]; do
    case $1 in
        --keep) keep=1; shift ;;
        --commit) [ $# -ge 2 ] || usage; commit=$2; shift 2 ;;
        *) usage ;;
    esac
done
[ "$(id -u)" = 0 ] || die "run as root"
# The host's tools for building and entering the root (the root itself gets nothing from the host).
"$top/tests/install-deps.sh" --fresh-machine
commit=$(git -C "$top" rev-parse --verify "$commit^{commit}") || die "no commit $commit in $top"

# The Debian mirror configured on this machine: the first source for bookworm, in either the deb822
# (*.sources) or the one-line (*.list) format. $HUSK_FRESH_MIRROR overrides it.
find_mirror() {
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
mirror=${HUSK_FRESH_MIRROR:-$(find_mirror)}
[ -n "$mirror" ] || die "no bookworm source in /etc/apt/sources.list*: set HUSK_FRESH_MIRROR"

cache=/var/cache/husk-fresh-machine
tarball=$cache/bookworm-minbase.tar
mkdir -p "$cache/archives/partial"

work='' ns_pid=''
# shellcheck disable=SC2317 # (called by the traps)
cleanup() {
    trap - EXIT INT TERM
    # Killing the namespace's init kills every process in the pid namespace; the mounts go with it.
    if [ -n "$ns_pid" ]; then kill -KILL "$ns_pid" 2>/dev/null || true; wait "$ns_pid" 2>/dev/null || true; fi
    if [ -n "$work" ]; then
        # Nothing is mounted below $work on the host's side (the mounts were made in the namespace);
        # --one-file-system is the safety net should that ever be wrong.
        if [ -n "$keep" ]; then echo "fresh-machine: root kept in $work/root" >&2
        else rm -rf --one-file-system -- "$work"; fi
    fi
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
work=$(mktemp -d /var/tmp/husk-fresh.XXXXXX)
root=$work/root

if [ ! -f "$tarball" ]; then
    echo "fresh-machine: debootstrap --variant=minbase bookworm from $mirror (once; cached in $tarball)" >&2
    debootstrap --variant=minbase bookworm "$work/bootstrap" "$mirror" > "$work/debootstrap.log" 2>&1 ||
        { tail -n 20 "$work/debootstrap.log" >&2; die "debootstrap failed"; }
    rm -f -- "$work/bootstrap/var/cache/apt/archives/"*.deb
    tar -C "$work/bootstrap" --numeric-owner --xattrs -cf "$tarball.new" .
    mv -f -- "$tarball.new" "$tarball"
    rm -rf --one-file-system -- "$work/bootstrap"
fi
mkdir -m 0755 -- "$root"
tar -C "$root" --numeric-owner --xattrs -xpf "$tarball"
cp -- /etc/resolv.conf "$root/etc/resolv.conf"
git clone --quiet --no-hardlinks "$top" "$root/husk"
git -C "$root/husk" checkout --quiet --detach "$commit"
echo "fresh-machine: testing $(git -C "$root/husk" log -1 --format='%h %s') in $root" >&2

# What runs inside, as PID 1 of the new pid namespace, still seeing the host's files: mount what a
# booted machine has, pivot_root into the root, drop the old one, and run the two commands.
# cgroups: only the host's cgroup2 (unified) hierarchy is bound, at the same place; the host's v1
# hierarchies are not there at all, so nothing inside can write them.
cat > "$work/enter.sh" <<'ENTER'
set -eu
root=$1 cache=$2
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
mount --bind "$cache/archives" "$root/var/cache/apt/archives"
cd "$root"
mkdir -p .old-root
pivot_root . .old-root
umount -l /.old-root
rmdir /.old-root
cd /husk
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LC_ALL=C.UTF-8
status=0
for command in bundles/demo.sh tests/run.sh; do
    echo "fresh-machine: == $command" >&2
    began=$(date +%s)
    rc=0
    "$command" </dev/null || rc=$?
    echo "fresh-machine: $command exited $rc after $(( $(date +%s) - began )) s" >&2
    [ "$rc" = 0 ] || status=1
done
exit "$status"
ENTER

# unshare --kill-child: should this script die, its child (the namespace's init) is killed as well.
env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin TERM="${TERM:-dumb}" ${CI:+CI=$CI} \
    unshare --mount --pid --fork --kill-child -- bash "$work/enter.sh" "$root" "$cache" &
ns_pid=$!
status=0
wait "$ns_pid" || status=$?
ns_pid=
if [ "$status" = 0 ]; then echo "fresh-machine: both commands passed on a fresh minbase root" >&2
else echo "fresh-machine: FAILED (status $status)" >&2; fi
[ "$status" = 0 ] || exit 1
