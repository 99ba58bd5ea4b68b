#!/bin/bash
# Runs README's two commands (bundles/demo.sh, tests/run.sh) on a truly fresh minimal Debian 12: a
# debootstrap --variant=minbase root holding a clean `git clone` of the commit under test. The machine
# you develop on hides missing install steps; this does not. See docs/testing.md.
#   tests/fresh-machine.sh [--keep] [--commit REV]
# --keep        leave the root (printed) for a look afterwards; it is removed otherwise
# --commit REV  the commit to test (default HEAD of this tree; uncommitted changes are not tested)
# Exit status: 0 when both commands exit 0, 1 when either fails, 2 on a usage or set-up error.
#
# The root (its cache, and how it is entered: tests/fresh-root.sh) is entered with pivot_root in private
# mount and pid namespaces. Everything the run makes goes when it ends, even on failure: the pid namespace
# dies with its init (so every process in it, containers and qemu included), its mounts die with the mount
# namespace, and the root is deleted.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/tests/fresh-root.sh"
fresh_start fresh-machine "$@"
root=$work/root
fresh_root_unpack "$work" "$root" || fresh_die "cannot make the fresh root"
git clone --quiet --no-hardlinks "$top" "$root/husk"
git -C "$root/husk" checkout --quiet --detach "$commit"
echo "fresh-machine: testing $(git -C "$root/husk" log -1 --format='%h %s') in $root" >&2

# What runs inside: the two commands from the clone, each one's status printed.
# shellcheck disable=SC2016 # (expanded inside)
fresh_root_enter "$root" "$fresh_cache/archives" bash -c '
cd /husk
status=0
for command in bundles/demo.sh tests/run.sh; do
    echo "fresh-machine: == $command" >&2
    began=$(date +%s)
    rc=0
    "$command" </dev/null || rc=$?
    echo "fresh-machine: $command exited $rc after $(( $(date +%s) - began )) s" >&2
    [ "$rc" = 0 ] || status=1
done
exit "$status"'
status=0
fresh_root_wait || status=$?
if [ "$status" = 0 ]; then echo "fresh-machine: both commands passed on a fresh minbase root" >&2
else echo "fresh-machine: FAILED (status $status)" >&2; fi
[ "$status" = 0 ] || exit 1
