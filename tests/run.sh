#!/bin/sh
# README's test command: installs what is needed, builds, and runs every test suite (docs/testing.md):
#   build/       (release) unit, integration, vm (cgroup v2 enforcement in qemu, docs/vm-harness.md), clients
#                (containerd, podman, Docker and the CRI plugin driving husk and runc in that VM), python,
#                completion and install
#   build-asan/  unit and integration again under ASan+UBSan, then each fuzz target for a minute
#   deb          tests/deb-fresh-root.sh: the Debian package built on a fresh minbase root, installed and used on
#                another
# Run as root from anywhere: tests/run.sh. Every suite runs; the exit status is non-zero if any failed.
#
# The suites mostly wait (containers, timeouts, VM boots), so they overlap (docs/testing.md, "Time budget"):
#   1. build/ is built;
#   2. in the background, the VM and client suites of build/ (one VM at a time) and the build of build-asan/;
#      in the foreground, the other suites of build/;
#   3. the suites of build-asan/, with the Debian package test in the background, while the VM suites may
#      still run.
# A background job's output is printed whole when it ends (it is kept in build/meson-logs/run-NAME.txt),
# and its failure counts like any other. The `run.sh:` lines give each step's end, in seconds from the start.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
started=$(date +%s)
elapsed() { echo "$(($(date +%s) - started)) s"; }
# --fresh-machine: debootstrap and git, for the Debian package test's fresh roots.
"$top/tests/install-deps.sh" --tests --fresh-machine
# The VM suite checks cgroup v2 enforcement in qemu: it needs its kernel.
"$top/tests/vm/install-deps.sh"
# The clients suite drives containerd, podman, Docker and the CRI plugin in that VM (tests/clients/): their
# packages.
"$top/tests/clients/install-deps.sh"

# configure DIR OPTION...: configures DIR (again, when it exists) with the options.
configure() {
    dir=$1
    shift
    if [ -d "$dir" ]; then meson configure "$dir" "$@"; else meson setup "$dir" "$top" "$@"; fi
}
status=0

# Background jobs: on Ctrl-C or TERM, or if this script stops early, each one still running gets TERM (meson
# test then stops its tests, ninja its compilers) and is waited for. They stay in this script's process
# group, so whatever signals the group reaches them too.
jobs=""
# shellcheck disable=SC2317  # called by the traps
stop_jobs() {
    for pid in $jobs; do kill -TERM "$pid" 2>/dev/null || true; done
    for pid in $jobs; do wait "$pid" 2>/dev/null || true; done
    jobs=""
}
trap stop_jobs EXIT
trap 'stop_jobs; exit 130' INT TERM
# background NAME COMMAND...: starts COMMAND, its output in build/meson-logs/run-NAME.txt (NAME: letters,
# digits and _).
background() {
    name=$1
    shift
    "$@" > "$top/build/meson-logs/run-$name.txt" 2>&1 &
    eval "pid_$name=\$!"
    jobs="$jobs $!"
    echo "run.sh: $name started in the background after $(elapsed) (output: build/meson-logs/run-$name.txt)"
}
# finish NAME: waits for NAME, prints its output, counts its failure and returns its exit status.
finish() {
    name=$1
    eval "pid=\$pid_$name"
    job_status=0
    wait "$pid" || job_status=$?
    jobs=$(echo "$jobs" | sed "s/ $pid\b//")
    echo "run.sh: $name ended with exit status $job_status after $(elapsed); its output:"
    cat "$top/build/meson-logs/run-$name.txt"
    [ "$job_status" -eq 0 ] || status=1
    return "$job_status"
}

# Release, as README's commands build it (and what is measured); an existing build/ made with another
# buildtype (meson's old default here was debugoptimized) becomes release too.
configure "$top/build" -Dtests=true -Dbuildtype=release
# Neither build runs at a lower priority: beside a CPU hog at the default priority (stress-ng, another job of
# the machine's) a `nice -n 10` build got a few percent of a core and took most of an hour. The tests beside
# the ASan build hold under load as they must beside any other (docs/testing.md, "Under load").
ninja -C "$top/build"
echo "run.sh: build/ built after $(elapsed)"
# Every sanitizer report ends the process with an error (UBSan would print and go on); the suppressions
# would name known leaks being fixed (tests/lsan.supp; none now). buildtype debug: -O0 halves the compile time
# of this build, and with -g the sanitizers' stack traces name files and lines (the release default has no
# debug info, and its NDEBUG stays out of this build).
configure "$top/build-asan" -Dtests=true -Dfuzz=true -Db_sanitize=address,undefined -Db_lundef=false -Dbuildtype=debug
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
export LSAN_OPTIONS="suppressions=$top/tests/lsan.supp:print_suppressions=0"

# --no-rebuild: build/ is built, and two meson tests must not both run ninja in it; --logbase keeps their
# logs apart (build/meson-logs/testlog-vm.txt).
background vm meson test -C "$top/build" --no-rebuild --print-errorlogs --logbase testlog-vm --suite vm --suite clients
background asan_build ninja -C "$top/build-asan"
# The integration shards (integration-1 ...) side by side with unit, completion and install; then python.
meson test -C "$top/build" --no-rebuild --print-errorlogs --num-processes 8 --no-suite vm --no-suite clients || status=1
echo "run.sh: the host suites of build/ done after $(elapsed)"

asan_built=yes
finish asan_build || asan_built=no
# The Debian package, built and installed on fresh roots: its own build (minutes of CPU) starts once build-asan/
# is built, beside the ASan suites, which mostly wait; beside the ASan build it lengthened the run by as much.
background deb "$top/tests/deb-fresh-root.sh"
if [ "$asan_built" = yes ]; then
    # The seccomp unit tests load filters that deny calls the sanitizer runtime itself makes in the filtered
    # child (sigaltstack, mmap), so they run in the plain build only.
    meson test -C "$top/build-asan" --no-rebuild --print-errorlogs --suite unit --test-args '~[seccomp]' || status=1
    # The integration tests tagged [no-sanitizer] cannot work under ASan (each one's reason: docs/testing.md);
    # ~[.] keeps the hidden VM tests out, which a filter of exclusions alone would let in.
    meson test -C "$top/build-asan" --no-rebuild --print-errorlogs --num-processes 8 --suite integration \
        --test-args '~[.]~[no-sanitizer]' || status=1
    # A crashing input is left in build-asan/tests/fuzz/ as crash-<hash> (docs/testing.md: reproduce it).
    meson test -C "$top/build-asan" --no-rebuild --print-errorlogs --suite fuzz || status=1
    echo "run.sh: the suites of build-asan/ done after $(elapsed)"
else
    echo "run.sh: build-asan/ did not build, so its suites did not run" >&2
fi
finish deb || true
finish vm || true
echo "run.sh: done after $(elapsed), exit status $status"
exit "$status"
