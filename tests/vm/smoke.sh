#!/bin/sh
# The VM harness's smoke test; runs inside the VM (run-in-vm.sh --files tests/vm -- sh smoke.sh):
# the hierarchy is pure cgroup v2 with the controllers husk needs, husk runs a container of the
# busybox bundle there, and the kernel enforces a memory.max (written by hand: husk refuses resource
# limits until issue #3 is done). Prints one "ok"/"not ok" line per check; exits 1 if any failed.
set -u
cgroup=/sys/fs/cgroup
failures=0
pass() { echo "ok - $*"; }
fail() { echo "not ok - $*"; failures=$((failures + 1)); }

work=$(mktemp -d /tmp/smoke.XXXXXX)
scratch=$cgroup/smoke-oom
cleanup() {
    if [ -d "$scratch" ]; then
        echo 1 > "$scratch/cgroup.kill" 2>/dev/null
        for _ in 1 2 3 4 5 6 7 8 9 10; do rmdir "$scratch" 2>/dev/null && break; sleep 0.1; done
    fi
    rm -rf "$work"
}
trap cleanup EXIT

# 1. cgroup_no_v1=all gives every controller to the v2 hierarchy.
controllers=$(cat "$cgroup/cgroup.controllers")
for controller in memory pids cpu io; do
    case " $controllers " in
        *" $controller "*) pass "cgroup v2 has the $controller controller" ;;
        *) fail "cgroup v2 has the $controller controller (cgroup.controllers: $controllers)" ;;
    esac
done

# 2. husk runs the busybox bundle, with the args replaced by a command that prints and exits 3.
mkdir "$work/bundle"
awk '
    /"args": \[/ { print "    \"args\": [\"sh\", \"-c\", \"echo hello from the vm; exit 3\"],"; skip = 1; next }
    skip { if ($0 ~ /^ *\],? *$/) skip = 0; next }
    /"path": "rootfs"/ { sub(/"rootfs"/, "\"/bundles/busybox/rootfs\"") }
    { print }
' /bundles/busybox/config.json > "$work/bundle/config.json"
if grep -q 'exit 3' "$work/bundle/config.json" && grep -q '/bundles/busybox/rootfs' "$work/bundle/config.json"; then
    husk --root /run/husk run --bundle "$work/bundle" c1 > "$work/out" 2> "$work/err"
    status=$?
    if [ "$status" = 3 ]; then pass "husk run exits with the container's status 3"
    else fail "husk run exits with the container's status 3 (got $status; stderr: $(cat "$work/err"))"; fi
    if [ "$(cat "$work/out")" = "hello from the vm" ]; then pass "the container's output comes back"
    else fail "the container's output comes back (stdout: $(cat "$work/out"))"; fi
    if [ ! -e /run/husk/c1 ] && [ ! -e "$cgroup/husk/c1" ]; then pass "husk run leaves no state dir and no cgroup"
    else fail "husk run leaves no state dir and no cgroup"; fi
else
    fail "could not derive the test config from /bundles/busybox/config.json"
fi

# 3. memory.max on a scratch cgroup: the value lands, and a workload that allocates past it is
# OOM-killed by the kernel (memory.events oom_kill). awk doubles a string until it is killed.
mkdir "$scratch"
if echo 16M > "$scratch/memory.max" && [ "$(cat "$scratch/memory.max")" = 16777216 ]; then
    pass "memory.max takes 16M"
else
    fail "memory.max takes 16M (reads $(cat "$scratch/memory.max" 2>&1))"
fi
echo 0 > "$scratch/memory.swap.max" 2>/dev/null
sh -c 'echo $$ > "$1/cgroup.procs" && exec awk "BEGIN { s = \"x\"; while (1) s = s s }"' sh "$scratch"
status=$?
oom_kills=$(awk '$1 == "oom_kill" { print $2 }' "$scratch/memory.events")
if [ "$status" = 137 ]; then pass "a workload over memory.max dies of SIGKILL"
else fail "a workload over memory.max dies of SIGKILL (exit status $status)"; fi
if [ "${oom_kills:-0}" -gt 0 ]; then pass "memory.events counts the OOM kill (oom_kill $oom_kills)"
else fail "memory.events counts the OOM kill ($(tr '\n' ' ' < "$scratch/memory.events"))"; fi

[ "$failures" = 0 ] || { echo "$failures check(s) failed"; exit 1; }
echo "all checks passed"
