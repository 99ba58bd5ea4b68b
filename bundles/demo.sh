#!/bin/sh
# README's demo command: installs build dependencies, builds husk and the busybox bundle, then runs one
# container through its lifecycle, printing `husk state` before, during and after, then one program with
# `husk sandbox` (no bundle) and its verdict.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
"$top/tests/install-deps.sh"
build="$top/build"
# Release, as measured; an existing build/ made with another buildtype becomes release too.
if [ -d "$build" ]; then meson configure "$build" -Dbuildtype=release; else meson setup "$build" "$top" -Dtests=false; fi
ninja -C "$build" src/cli/husk
"$top/bundles/build-rootfs.sh" "$top/bundles/busybox/rootfs"
husk="$build/src/cli/husk"
root=$(mktemp -d /tmp/husk-demo.XXXXXX)
id=demo-$$
cleanup() { "$husk" --root "$root" delete --force "$id" >/dev/null 2>&1 || true; rm -rf "$root"; }
trap cleanup EXIT INT TERM

echo "== husk create (init waits for start)"
"$husk" --root "$root" create --bundle "$top/bundles/busybox" "$id"
"$husk" --root "$root" state "$id"
echo "== husk start: the container prints, then sleeps 2 s"
"$husk" --root "$root" start "$id"
sleep 0.5
"$husk" --root "$root" state "$id"
echo "== after it exits"
sleep 2.5
"$husk" --root "$root" state "$id"
"$husk" --root "$root" delete "$id"
echo "== deleted; husk list:"
"$husk" --root "$root" list
echo "== husk sandbox: one command, no bundle; the program runs as nobody with no capabilities, husk's"
echo "   seccomp profile and a 5 s wall-time limit, and the verdict says how it ended"
# The sandbox's user namespace (host ids from 2^30) must be able to reach the state root.
chmod 0711 "$root"
"$husk" --root "$root" sandbox --timeout 5s --verdict "$root/verdict.json" -- \
    sh -c 'echo "hello from a sandbox: $(id -un), $(grep -c . /proc/self/mountinfo) mounts"'
cat "$root/verdict.json"
echo
