#!/bin/sh
# The containerd part of tests/bench.sh, in a VM of its own (pure cgroup v2): what a container costs under three
# supervisors, each driven by containerd 1.6 (Debian's containerd, ctr, containerd-shim-runc-v2 and runc,
# staged with run-in-vm.sh --stage):
#   runc       runc's shim + runc     (ctr --runtime io.containerd.runc.v2)
#   huskrunc   runc's shim + husk     (the same, --runc-binary husk: husk's own monitor beside the shim)
#   husk       husk's shim            (ctr --runtime io.containerd.husk.v2: husk as containerd-shim-husk-v2,
#                                      the symlink run-in-vm.sh stages beside husk)
# Runs in the guest, from /files (busybox.tar; for the CRI part also cri.py, its stubs, pause.tar and
# python.tar from tests/clients/cri-prepare.sh):   sh bench-shim.sh N [all|ctr]   (ctr: no CRI part)
# It prints one machine-readable line per figure for the host to fold into its table:
#   BENCHROW vm-shim-pss RUNC HUSKRUNC HUSK   PSS in kB per running container: K (5) containers of one setup
#                                             running `sleep 1000` at once, the summed Pss (smaps_rollup) of
#                                             every process that supervises them (each container's shim; for
#                                             huskrunc also husk's monitor, the shim's child that is not the
#                                             container's init), divided by K. One setup at a time, so that
#                                             no setup shares its binaries' pages with another's processes.
#   BENCHROW vm-shim-ctr RUNC HUSKRUNC HUSK   median wall time of `ctr run --rm IMAGE ID /bin/true`, N runs
#                                             interleaved, in microseconds
#   BENCHROW vm-shim-cri RUNC HUSKRUNC HUSK   median wall time of a pod through containerd's CRI plugin
#                                             (cri.py): RunPodSandbox, CreateContainer + StartContainer of
#                                             /bin/true, ContainerStatus until exited, StopPodSandbox,
#                                             RemovePodSandbox, N runs interleaved, in microseconds
# ("-" for a figure that could not be measured). The lines cross a serial port: each is written whole, in
# one printf, and the host takes only lines of exactly this shape; anything else is a message.
# Leaves nothing running: every container and task is removed, containerd and the client are stopped.
# finish() and pod() are called through the trap and measure, which shellcheck cannot follow.
# shellcheck disable=SC2317
set -u
runs=${1:-10}
part=${2:-all}
K=5
setups="runc huskrunc husk"
ctrd=/tmp/ctrd
image=localhost/busybox:latest
export CONTAINERD_ADDRESS=$ctrd/containerd.sock CONTAINERD_SNAPSHOTTER=native

containerd_pid='' client_pid=''
finish() {
    trap - EXIT
    [ -z "$client_pid" ] || kill "$client_pid" 2>/dev/null
    if [ -n "$containerd_pid" ]; then
        for id in $(ctr containers ls -q 2>/dev/null); do remove "$id"; done
        for id in $(ctr -n k8s.io containers ls -q 2>/dev/null); do remove "$id" -n k8s.io; done
        kill "$containerd_pid" 2>/dev/null
        wait "$containerd_pid" 2>/dev/null
    fi
    # What containerd complained about (the shims' errors reach its log), each message once with its count,
    # for whoever reads the bench.
    # (containerd logs what a shim's delete action wrote to stderr as one message, "cleanup warnings time=...":
    # counted by its first words.)
    sed -nE 's/.*level=(error|warning) msg="([^"\\]*).*/\1: \2/p' "$ctrd/containerd.log" 2>/dev/null |
        sort | uniq -c | sed 's/^/bench-shim: containerd log: /' >&2
}
trap finish EXIT

# Every client call is bounded: a hang fails the figure instead of eating the harness's timeout.
ctr() { timeout -s KILL 60 /usr/local/bin/ctr "$@"; }
options() { # SETUP: ctr run's options for it
    case $1 in
        runc) echo "--runtime io.containerd.runc.v2" ;;
        huskrunc) echo "--runtime io.containerd.runc.v2 --runc-binary /usr/local/bin/husk --runc-root $ctrd/root-husk" ;;
        husk) echo "--runtime io.containerd.husk.v2" ;;
    esac
}
remove() { # ID [ctr OPTION...]: whatever is left of it, quietly
    id=$1
    shift
    ctr "$@" task kill -a -s SIGKILL "$id" > /dev/null 2>&1
    ctr "$@" task delete -f "$id" > /dev/null 2>&1
    ctr "$@" container delete "$id" > /dev/null 2>&1
    return 0
}
# start_containerd CONFIG_EXTRA: containerd with its root, state and sockets under $ctrd (ctr.sh's setup),
# the native snapshotter (the guest's root is a tmpfs: no overlay); CONFIG_EXTRA is appended to the config.
start_containerd() {
    mkdir -p $ctrd
    cat > $ctrd/config.toml <<EOF
version = 2
root = "$ctrd/root"
state = "$ctrd/state"
disabled_plugins = [$1"io.containerd.snapshotter.v1.aufs",
    "io.containerd.snapshotter.v1.btrfs", "io.containerd.snapshotter.v1.devmapper",
    "io.containerd.snapshotter.v1.zfs", "io.containerd.snapshotter.v1.overlayfs"]
[grpc]
  address = "$ctrd/containerd.sock"
[ttrpc]
  address = "$ctrd/containerd.sock.ttrpc"
[plugins."io.containerd.snapshotter.v1.native"]
  root_path = "$ctrd/native"
[plugins."io.containerd.monitor.v1.cgroups"]
  no_prometheus = true
$2
EOF
    containerd --config $ctrd/config.toml >> $ctrd/containerd.log 2>&1 &
    containerd_pid=$!
    i=0
    until ctr version > /dev/null 2>&1; do
        i=$((i + 1))
        if [ $i -gt 300 ]; then
            echo "bench-shim: containerd did not answer in 30 s:" >&2
            tail -n 30 $ctrd/containerd.log >&2
            exit 1
        fi
        sleep 0.1
    done
}
# left_behind: any shim, husk or container process still running a second after every container was removed.
left_behind() {
    sleep 1
    for dir in /proc/[0-9]*; do
        case $(cmdline_of "${dir#/proc/}") in
            *containerd-shim*|*/husk\ *|"sleep 1000"*|/catatonit*) echo "bench-shim: left behind: ${dir#/proc/} $(cmdline_of "${dir#/proc/}")" >&2 ;;
        esac
    done
}
stop_containerd() {
    left_behind
    kill "$containerd_pid"
    wait "$containerd_pid" 2>/dev/null
    containerd_pid=
}

median() { sort -n "$1" | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : int((v[NR / 2] + v[NR / 2 + 1]) / 2) }'; }
figure() { if [ -s "$ctrd/$1" ]; then median "$ctrd/$1"; else echo -; fi; }

# ---- a. PSS per running container
pss() { awk '$1 == "Pss:" { print $2 }' "/proc/$1/smaps_rollup"; }
parent_of() { awk '{ print $4 }' "/proc/$1/stat" 2>/dev/null; }
cmdline_of() { tr '\0' ' ' < "/proc/$1/cmdline" 2>/dev/null; }
# supervisors ID: the pids that supervise container ID: the shim whose command line names `-id ID`, and every
# child of that shim but the container's init (runc's shim: none once runc exited; husk's monitor under it).
supervisors() {
    init=$(ctr task ls | awk -v id="$1" '$1 == id { print $2 }')
    shim=
    for dir in /proc/[0-9]*; do
        case $(cmdline_of "${dir#/proc/}") in *containerd-shim*" -id $1 "*) shim=${dir#/proc/}; break ;; esac
    done
    if [ -z "$shim" ] || [ -z "$init" ]; then echo "bench-shim: no shim or init for $1" >&2; return 1; fi
    echo "$shim"
    for dir in /proc/[0-9]*; do
        pid=${dir#/proc/}
        if [ "$(parent_of "$pid")" != "$shim" ] || [ "$pid" = "$init" ]; then continue; fi
        echo "$pid"
        echo "bench-shim: $1: beside the shim $shim: $pid $(cmdline_of "$pid")" >&2
    done
}
pss_per_container() { # SETUP: kB
    ids=$(awk -v p="pss-$1" -v n=$K 'BEGIN { for (i = 1; i <= n; i++) print p "-" i }')
    for id in $ids; do
        # shellcheck disable=SC2046 # (ctr's options)
        ctr run -d $(options "$1") "$image" "$id" sleep 1000 > /dev/null || { echo "bench-shim: ctr run -d $id failed" >&2; return 1; }
    done
    sleep 1  # the shims settle: runc exits, the first ttrpc calls are answered
    total=0
    for id in $ids; do
        pids=$(supervisors "$id") || return 1
        for pid in $pids; do
            kb=$(pss "$pid")
            total=$((total + ${kb:-0}))
        done
    done
    for id in $ids; do remove "$id"; done
    echo $((total / K))
}

# ---- b. ctr run --rm of /bin/true; c. a pod through the CRI plugin
# measure NAME COMMAND...: one run, its wall time in microseconds (the probe's clock) appended to $ctrd/NAME.us.
measure() {
    name=$1
    shift
    start=$(probe now)
    "$@" > /dev/null 2> $ctrd/err < /dev/null || { echo "bench-shim: $name failed: $*" >&2; cat $ctrd/err >&2; return 1; }
    end=$(probe now)
    echo $((end - start)) >> "$ctrd/$name.us"
}

start_containerd '"io.containerd.grpc.v1.cri", ' ''
ctr images import busybox.tar > /dev/null || { echo "bench-shim: ctr images import failed" >&2; exit 1; }

pss_runc=- pss_huskrunc=- pss_husk=-
for s in $setups; do
    kb=$(pss_per_container "$s") && eval "pss_$s=\$kb"
done
printf 'BENCHROW vm-shim-pss %s %s %s\n' "$pss_runc" "$pss_huskrunc" "$pss_husk"

i=0
while [ "$i" -lt "$runs" ]; do
    i=$((i + 1))
    for s in $setups; do
        # shellcheck disable=SC2046 # (ctr's options)
        measure "ctr-$s" ctr run --rm $(options "$s") "$image" "rm-$s-$i" /bin/true || remove "rm-$s-$i"
    done
done
printf 'BENCHROW vm-shim-ctr %s %s %s\n' "$(figure ctr-runc.us)" "$(figure ctr-huskrunc.us)" "$(figure ctr-husk.us)"
stop_containerd

[ "$part" = all ] || exit 0
if [ ! -f python.tar ] || [ ! -f pause.tar ]; then echo "bench-shim: no python.tar or pause.tar: no CRI part" >&2; exit 0; fi
# ---- c. The CRI plugin (tests/clients/cri.sh's setup): a handler per setup, pods on the host's network.
tar -xf python.tar -C / || { echo "bench-shim: cannot unpack python.tar" >&2; exit 1; }
rm python.tar
[ -e /etc/resolv.conf ] || : > /etc/resolv.conf
export CRI_ADDRESS=unix://$ctrd/containerd.sock CRI_STATE=$ctrd/client
mkdir -p $CRI_STATE
cri_config=$(cat <<EOF
[plugins."io.containerd.grpc.v1.cri"]
  sandbox_image = "localhost/pause:latest"
  [plugins."io.containerd.grpc.v1.cri".containerd]
    snapshotter = "native"
    default_runtime_name = "runc"
    [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
      runtime_type = "io.containerd.runc.v2"
    [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.huskrunc]
      runtime_type = "io.containerd.runc.v2"
      [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.huskrunc.options]
        BinaryName = "/usr/local/bin/husk"
        Root = "/run/containerd/husk"
        SystemdCgroup = false
    [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.husk]
      runtime_type = "io.containerd.husk.v2"
  [plugins."io.containerd.grpc.v1.cri".cni]
    bin_dir = "$ctrd/cni/bin"
    conf_dir = "$ctrd/cni/conf"
EOF
)
start_containerd '' "$cri_config"

# The client runs once (cri.py serve; cri.sh explains the FIFO protocol): each start of python costs seconds.
mkfifo $ctrd/cri.requests $ctrd/cri.responses
/usr/bin/python3.11 -S ./cri.py serve $ctrd/cri.requests $ctrd/cri.responses &
client_pid=$!
exec 8<> $ctrd/cri.responses
cri() {
    { printf '%s\037' "$@"; echo; } > $ctrd/cri.requests
    # shellcheck disable=SC3045  # busybox ash's read has -t
    while IFS= read -r -t 300 reply <&8; do
        case $reply in
            "O "*) printf '%s\n' "${reply#O }" ;;
            "E "*) printf '%s\n' "${reply#E }" >&2 ;;
            "S "*) return "${reply#S }" ;;
        esac
    done
    echo "bench-shim: no reply from cri.py within 300 s" >&2
    return 2
}
i=0
until cri ready > /dev/null 2>&1; do
    i=$((i + 1))
    [ $i -le 60 ] || { echo "bench-shim: the CRI plugin was not ready in time" >&2; tail -n 30 $ctrd/containerd.log >&2; exit 1; }
    sleep 1
done
for tar in busybox.tar pause.tar; do
    ctr -n k8s.io images import $tar > /dev/null || { echo "bench-shim: ctr -n k8s.io images import $tar failed" >&2; exit 1; }
done
# pod HANDLER NAME: the whole life of a pod whose one container runs /bin/true.
pod() {
    sandbox=$(cri runp "$2" "$1" --cgroup-parent /kubepods/bench) || return 1
    container=$(cri create "$sandbox" c "$image" --start -- /bin/true) || return 1
    n=0
    until cri status "${container% *}" | grep -q '^exited '; do
        n=$((n + 1))
        [ "$n" -le 3000 ] || { echo "not exited after 30 s"; return 1; }
        sleep 0.01
    done
    cri stopp "$sandbox" && cri rmp "$sandbox"
}
i=0
while [ "$i" -lt "$runs" ]; do
    i=$((i + 1))
    for s in $setups; do measure "cri-$s" pod "$s" "pod-$s-$i"; done
done
printf 'BENCHROW vm-shim-cri %s %s %s\n' "$(figure cri-runc.us)" "$(figure cri-huskrunc.us)" "$(figure cri-husk.us)"
for id in $(cri pods 2>/dev/null); do cri stopp "$id" > /dev/null 2>&1; cri rmp "$id" > /dev/null 2>&1; done
rmdir /sys/fs/cgroup/kubepods/bench /sys/fs/cgroup/kubepods 2>/dev/null
left_behind
exit 0
