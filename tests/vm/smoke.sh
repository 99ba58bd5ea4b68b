#!/bin/sh
# The VM harness's smoke test; runs inside the VM (run-in-vm.sh --files tests/vm -- sh smoke.sh):
# the hierarchy is pure cgroup v2 with the controllers husk needs, and husk runs a container of the
# busybox bundle there, its status and output coming back through the harness. It checks the harness
# itself, in a few seconds; what husk's limits do is the job of vm-integration (husk-integration '[vm]').
# Prints one "ok"/"not ok" line per check; exits 1 if any failed.
set -u
cgroup=/sys/fs/cgroup
failures=0
pass() { echo "ok - $*"; }
fail() { echo "not ok - $*"; failures=$((failures + 1)); }

work=$(mktemp -d /tmp/smoke.XXXXXX)
trap 'rm -rf "$work"' EXIT

# 1. cgroup_no_v1=all gives every controller to the v2 hierarchy.
controllers=$(cat "$cgroup/cgroup.controllers")
for controller in memory pids cpu cpuset io hugetlb; do
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

[ "$failures" = 0 ] || { echo "$failures check(s) failed"; exit 1; }
echo "all checks passed"
