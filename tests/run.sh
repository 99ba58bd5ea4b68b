#!/bin/sh
# README's test command: installs what is needed, builds, and runs every test suite (unit, integration, vm).
# Run as root from anywhere: tests/run.sh
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
"$top/tests/install-deps.sh" --tests
# The VM suite (tests/vm, docs/vm-harness.md) checks cgroup v2 enforcement in qemu: it needs its kernel.
"$top/tests/vm/install-deps.sh"
build="$top/build"
if [ -d "$build" ]; then meson configure "$build" -Dtests=true; else meson setup "$build" "$top" -Dtests=true; fi
ninja -C "$build"
meson test -C "$build" --print-errorlogs
