#!/bin/sh
# The guest's half of tests/vm/reboot-ledger.sh: a tenant's ledger on a --root on a real disk (/dev/vda,
# ext4) survives a hard reset of the VM (docs/tenants.md, "Reboots").
#   sh guest.sh before   charge 3 runs, start a 4th detached, then reset the VM at once (sysrq b: no sync,
#                        no unmount, the run still live)
#   sh guest.sh after CPU WALL   (the next boot; CPU and WALL: used before the reset) the 3 charges are there, the live run is charged its budgets, and
#                        the next admission works from there
# Every line starting "ledger:" is for the host's log; "crashing" tells it the reset was meant.
set -eu
phase=$1
mkdir -p /persist
mount -t ext4 /dev/vda /persist
root=/persist/root
husk() { /usr/local/bin/husk --root "$root" "$@"; }
fail() { echo "reboot test: $*" >&2; exit 1; }

# A bundle running `/probe ARGS...` (the example bundle's rootfs has the probe).
bundle() { # DIR ARGS...
    dir=$1
    shift
    rm -rf "$dir"
    mkdir -p "$dir"
    cp -a /bundles/busybox/rootfs "$dir/rootfs"
    args=
    for word in "$@"; do args="$args${args:+, }\"$word\""; done
    # The example config's args are its only multi-line array: replace it with ours.
    awk -v args="$args" '
        /"args": \[/ { print "    \"args\": [" args "],"; skip = 1; next }
        skip && /\]/ { skip = 0; next }
        !skip { print }' /bundles/busybox/config.json > "$dir/config.json"
}

# used.FIELD of `husk tenant show acme` (pretty JSON: the "used" object's lines).
used() { # FIELD
    husk tenant show acme | awk -v key="\"$1\":" '
        /"used": \{/ { inside = 1; next }
        inside && /\}/ { inside = 0 }
        inside && $1 == key { gsub(/,/, "", $2); print $2 }'
}

case $phase in
before)
    husk tenant set acme --cpu 1h --wall 10h --runs 100
    bundle /tmp/burn /probe burn 50
    for i in 1 2 3; do
        husk run --bundle /tmp/burn --tenant acme --cpu-limit 1s --timeout 20s "burn$i" > /dev/null
    done
    [ "$(used runs)" = 3 ] || fail "3 runs not charged: $(husk tenant show acme)"
    echo "ledger: before: cpuUsec $(used cpuUsec) wallUsec $(used wallUsec) runs $(used runs)"
    bundle /tmp/live /probe sleep 600
    husk run --detach --bundle /tmp/live --tenant acme --cpu-limit 2s --timeout 5m live
    [ "$(husk state live | grep -c '"status": "running"')" = 1 ] || fail "the live run is not running"
    echo "ledger: live run started"
    cat "$root/tenants/acme.ledger"
    echo "crashing"
    # Everything written so far must leave the UARTs before the reset, or the host may not see "crashing"
    # (busybox stty returns after TCSADRAIN; tests/vm/guest/init2 drains the same way before poweroff).
    stty -F /dev/ttyS1 raw -echo clocal
    stty -F /dev/ttyS2 raw -echo clocal
    # Reset at once: no sync, no unmount; husk's fsyncs alone must have made the ledger durable.
    echo b > /proc/sysrq-trigger
    sleep 10
    fail "still running after sysrq b"
    ;;
after)
    cat "$root/tenants/acme.ledger"
    before_cpu=$2 before_wall=$3
    [ "$(used runs)" = 4 ] || fail "after the reboot, used.runs is not 4: $(husk tenant show acme)"
    cpu=$(used cpuUsec) wall=$(used wallUsec)
    echo "ledger: after: cpuUsec $cpu wallUsec $wall runs 4"
    # The live run's charge came from its budgets: 2 s of CPU, 5 min of wall time.
    [ $((cpu - before_cpu)) = 2000000 ] || fail "the live run was charged $((cpu - before_cpu)) us of CPU, not its 2 s budget"
    [ $((wall - before_wall)) = 300000000 ] || fail "the live run was charged $((wall - before_wall)) us of wall, not its 5 min"
    tail -n 1 "$root/tenants/acme.ledger" | grep -q '^end live@.* recovered-budget ' || fail "no recovered-budget end record"
    husk tenant show acme | tr -d ' \t\n' | grep -q '"live":\[\]' || fail "a run is still live: $(husk tenant show acme)"
    # The stale container of the earlier boot goes with delete, which charges nothing more.
    husk delete --force live
    [ "$(used cpuUsec)" = "$cpu" ] || fail "delete charged the recovered run again"
    # The next admission starts from the replayed ledger.
    bundle /tmp/next /probe exit 0
    husk run --bundle /tmp/next --tenant acme next > /dev/null
    [ "$(used runs)" = 5 ] || fail "the next run was not charged on top: $(husk tenant show acme)"
    echo "ledger: next run admitted and charged; runs 5"
    ;;
*) fail "usage: guest.sh before | after CPU WALL" ;;
esac
