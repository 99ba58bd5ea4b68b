#!/bin/sh
# README's demo command: installs build dependencies, builds husk and the busybox bundle, then runs one
# container through its lifecycle, printing `husk state` before, during and after.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
"$top/tests/install-deps.sh"
build="$top/build"
[ -d "$build" ] || meson setup "$build" "$top" -Dtests=false
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
