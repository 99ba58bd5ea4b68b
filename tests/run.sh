#!/bin/sh
# README's test command: installs what is needed, builds, and runs every test suite (docs/testing.md):
#   build/       (release) unit, integration, vm (cgroup v2 enforcement in qemu, docs/vm-harness.md), clients
#                (containerd and podman driving husk and runc in that VM), python, completion and install
#   build-asan/  unit and integration again under ASan+UBSan, then each fuzz target for a minute
# Run as root from anywhere: tests/run.sh. Every suite runs; the exit status is non-zero if any failed.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
"$top/tests/install-deps.sh" --tests
# The VM suite checks cgroup v2 enforcement in qemu: it needs its kernel.
"$top/tests/vm/install-deps.sh"
# The clients suite drives containerd and podman in that VM (tests/clients/): their packages.
"$top/tests/clients/install-deps.sh"

# build DIR OPTION...: configures DIR (again, when it exists) with the options and builds it.
build() {
    dir=$1
    shift
    if [ -d "$dir" ]; then meson configure "$dir" "$@"; else meson setup "$dir" "$top" "$@"; fi
    ninja -C "$dir"
}
status=0
# Release, as README's commands build it (and what is measured); an existing build/ made with another
# buildtype (meson's old default here was debugoptimized) becomes release too.
build "$top/build" -Dtests=true -Dbuildtype=release
meson test -C "$top/build" --print-errorlogs || status=1

# Every sanitizer report ends the process with an error (UBSan would print and go on); the suppressions
# would name known leaks being fixed (tests/lsan.supp; none now). buildtype debug: -O0 halves the compile time
# of this build, and with -g the sanitizers' stack traces name files and lines (the release default has no
# debug info, and its NDEBUG stays out of this build).
build "$top/build-asan" -Dtests=true -Dfuzz=true -Db_sanitize=address,undefined -Db_lundef=false -Dbuildtype=debug
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
export LSAN_OPTIONS="suppressions=$top/tests/lsan.supp:print_suppressions=0"
# The seccomp unit tests load filters that deny calls the sanitizer runtime itself makes in the filtered
# child (sigaltstack, mmap), so they run in the plain build only.
meson test -C "$top/build-asan" --print-errorlogs --suite unit --test-args '~[seccomp]' || status=1
# The integration tests tagged [no-sanitizer] cannot work under ASan (each one's reason: docs/testing.md);
# ~[.] keeps the hidden VM tests out, which a filter of exclusions alone would let in.
meson test -C "$top/build-asan" --print-errorlogs --suite integration --test-args '~[.]~[no-sanitizer]' || status=1
# A crashing input is left in build-asan/tests/fuzz/ as crash-<hash> (docs/testing.md: reproduce it).
meson test -C "$top/build-asan" --print-errorlogs --suite fuzz || status=1
exit "$status"
