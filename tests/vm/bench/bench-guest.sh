#!/bin/sh
# The in-VM half of tests/bench.sh: N interleaved `run` of /bin/true with a 64 MiB memory limit, by husk,
# runc and crun (Debian's, staged with run-in-vm.sh --stage), on the guest's pure cgroup v2 hierarchy.
# Prints the median wall time of each. Runs in the guest: sh bench-guest.sh N
set -u
runs=${1:-20}
work=$(mktemp -d /tmp/bench.XXXXXX)
trap 'rm -rf "$work"' EXIT

# One bundle per runtime: the example config with /bin/true, a memory limit, no terminal, and (for crun
# 1.8, which refuses newer versions) ociVersion 1.0.2. Every runtime reads the same rootfs.
make_bundle() { # DIR
    mkdir -p "$1"
    awk '
        /"ociVersion"/ { print "  \"ociVersion\": \"1.0.2\","; next }
        /"terminal":/ { sub(/true/, "false") }
        /"args": \[/ { print "    \"args\": [\"/bin/true\"],"; skip = 1; next }
        skip { if ($0 ~ /^ *\],? *$/) skip = 0; next }
        /"path": "rootfs"/ { sub(/"rootfs"/, "\"/bundles/busybox/rootfs\"") }
        /"resources": \{/ { print; print "      \"memory\": { \"limit\": 67108864, \"swap\": 67108864 },"; next }
        { print }
    ' /bundles/busybox/config.json > "$1/config.json"
    grep -q '"limit": 67108864' "$1/config.json" || { echo "bench: could not add the memory limit" >&2; exit 1; }
}
make_bundle "$work/bundle"

# measure NAME COMMAND...: one run, microseconds appended to $work/NAME.us.
measure() {
    name=$1
    shift
    start=$(probe now)
    if ! "$@" >/dev/null 2>"$work/err"; then
        echo "bench: $name failed: $*" >&2
        cat "$work/err" >&2
        exit 1
    fi
    end=$(probe now)
    echo $((end - start)) >> "$work/$name.us"
}

runtimes="husk"
for r in runc crun; do command -v "$r" >/dev/null 2>&1 && runtimes="$runtimes $r"; done
i=0
while [ "$i" -lt "$runs" ]; do
    i=$((i + 1))
    for r in $runtimes; do
        measure "$r" "$r" --root "$work/root-$r" run --bundle "$work/bundle" "bench-$r-$i"
    done
done

median() { sort -n "$1" | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
echo "in the VM (TCG, pure cgroup v2), memory.limit 64 MiB, runs: $runs each, interleaved"
printf '%-6s %14s\n' runtime "median wall ms"
for r in $runtimes; do
    printf '%-6s %14s\n' "$r" "$(median "$work/$r.us" | awk '{ printf "%.1f", $1 / 1000 }')"
done
