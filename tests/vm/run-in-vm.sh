#!/bin/bash
# Runs COMMAND inside a throw-away qemu VM (TCG) booted from Debian's kernel with a pure cgroup v2
# hierarchy, and exits with COMMAND's status. See docs/vm-harness.md.
#   tests/vm/run-in-vm.sh [--build DIR] [--timeout S] [--memory MB] [--files DIR] [--module NAME]...
#                         [--stage BINARY]... [--console FILE] [--disk FILE] -- COMMAND...
# --build DIR    the meson build dir: husk and the probe come from it (or $HUSK_BINARY, $HUSK_PROBE),
#                and, when built, the integration tests and the subreaper caller (or $HUSK_INTEGRATION,
#                $HUSK_SUBREAPER_CALLER); the cached kernel goes to DIR/tests/vm/cache (default: build/)
# --timeout S    kill the VM after S seconds of wall time (default 300) and exit 124
# --memory MB    the guest's RAM (default 512); the guest's root is a tmpfs holding the whole initramfs
# --files DIR    copy DIR's contents to /files in the guest; COMMAND runs there (else in /)
# --module NAME  insmod kernel module NAME and its dependencies before COMMAND
# --stage BINARY copy BINARY (and its shared libraries) to /usr/local/bin/ in the guest (e.g. runc, crun)
# --console FILE keep the kernel console log in FILE
# --disk FILE    attach FILE (a raw image) as a virtio disk, /dev/vda in the guest (needs --module virtio_pci
#                --module virtio_blk); what the guest wrote survives the VM, so a second VM can boot with it
# Exit status: COMMAND's, or 124 (timed out) or 125 (the VM failed; the console tail is printed).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
top=$(dirname "$(dirname "$here")")
usage() { echo "usage: $0 [--build DIR] [--timeout S] [--memory MB] [--files DIR] [--module NAME]... [--stage BINARY]... [--console FILE] [--disk FILE] -- COMMAND..." >&2; exit 2; }
die() { echo "run-in-vm: $*" >&2; exit 125; }

build=$top/build
timeout=300
memory=512
files=
modules=()
staged=()
console_copy=
disk=
while [ $# -gt 0 ]; do
    case $1 in
        --build) [ $# -ge 2 ] || usage; build=$2; shift 2 ;;
        --timeout) [ $# -ge 2 ] || usage; timeout=$2; shift 2 ;;
        --memory) [ $# -ge 2 ] || usage; memory=$2; shift 2 ;;
        --files) if [ $# -lt 2 ] || [ -n "$files" ]; then usage; fi; files=$2; shift 2 ;;
        --module) [ $# -ge 2 ] || usage; modules+=("$2"); shift 2 ;;
        --stage) [ $# -ge 2 ] || usage; [ -x "$2" ] || die "--stage $2: not an executable"; staged+=("$2"); shift 2 ;;
        --console) [ $# -ge 2 ] || usage; console_copy=$2; shift 2 ;;
        --disk) [ $# -ge 2 ] || usage; [ -f "$2" ] || die "--disk $2: not a file"; disk=$2; shift 2 ;;
        --) shift; break ;;
        *) usage ;;
    esac
done
[ $# -gt 0 ] || usage
[[ $timeout =~ ^[1-9][0-9]*$ ]] || usage
# Below 128 MB Debian's kernel and the initramfs alone do not fit.
if ! [[ $memory =~ ^[1-9][0-9]*$ ]] || [ "$memory" -lt 128 ]; then die "--memory $memory: give megabytes, 128 or more"; fi
husk=${HUSK_BINARY:-$build/src/cli/husk}
probe=${HUSK_PROBE:-$build/tests/probe}
# Optional: staged when built, so the guest can run `husk-integration '[vm]'`.
integration=${HUSK_INTEGRATION:-$build/tests/integration/husk-integration}
subreaper_caller=${HUSK_SUBREAPER_CALLER:-$build/tests/subreaper-caller}
[ -x "$husk" ] || die "husk binary not found at $husk (build it, or pass --build / \$HUSK_BINARY)"
[ -x "$probe" ] || die "probe not found at $probe (build it, or pass --build / \$HUSK_PROBE)"
[ -z "$files" ] || [ -d "$files" ] || die "--files $files: not a directory"
for tool in qemu-system-x86_64 cpio modprobe; do
    command -v "$tool" >/dev/null 2>&1 || die "$tool not found: run tests/vm/install-deps.sh"
done

vmlinux=$("$here/prepare-kernel.sh" "$build/tests/vm/cache") || die "no bootable kernel"
kernel_version=${vmlinux##*/vmlinux-}

# Everything the run creates lives in $work; cleanup() removes it and ends every process we started.
work='' qemu_pid='' timer_pid='' reader_pids=()
kill_and_reap() { # PID...
    local pid
    for pid in "$@"; do kill -KILL "$pid" 2>/dev/null || true; done
    for pid in "$@"; do wait "$pid" 2>/dev/null || true; done
}
# A reader still blocked in open() of its FIFO returns once someone opens the other end: open each
# FIFO read-write once, then close it, so every reader sees EOF.
release_fifos() {
    local fifo
    for fifo in "$work"/*.fifo; do
        if [ -p "$fifo" ]; then : <>"$fifo"; fi
    done
}
# shellcheck disable=SC2317 # (called by the EXIT trap)
cleanup() {
    trap - EXIT INT TERM
    [ -z "$qemu_pid" ] || kill_and_reap "$qemu_pid"
    [ -z "$timer_pid" ] || kill_and_reap "$timer_pid"
    if [ ${#reader_pids[@]} -gt 0 ]; then
        release_fifos
        kill_and_reap "${reader_pids[@]}"
    fi
    [ -z "$work" ] || rm -rf --one-file-system -- "$work"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
work=$(mktemp -d /tmp/husk-vm.XXXXXX)

# shellcheck source=tests/vm/initramfs.sh
. "$here/initramfs.sh"
build_initramfs "$work/root" "$work/initramfs.cpio" "$@"

console_tail() {
    echo "run-in-vm: $1; last lines of the kernel console:" >&2
    tail -n 40 "$work/console.log" 2>/dev/null | tr -d '\r' | sed 's/^/  console: /' >&2
    [ ! -s "$work/qemu.log" ] || sed 's/^/  qemu: /' "$work/qemu.log" >&2
}

# Readers first: qemu opens each FIFO for writing at start-up and blocks until its reader is there.
mkfifo "$work/stdout.fifo" "$work/stderr.fifo" "$work/status.fifo"
sed -u '' < "$work/stdout.fifo" &
reader_pids+=($!)
sed -u '' < "$work/stderr.fifo" >&2 &
reader_pids+=($!)
# Each status line gets the host's clock, so boot time is measured from the host's side.
while IFS= read -r line; do echo "$(date +%s%N) $line"; done < "$work/status.fifo" > "$work/status.log" &
reader_pids+=($!)

# The ISA serial ports in order: ttyS0 kernel console, ttyS1 stdout, ttyS2 stderr, ttyS3 status.
start_ns=$(date +%s%N)
setpriv --pdeathsig KILL -- qemu-system-x86_64 \
    -machine pc -accel tcg,thread=multi,tb-size=256 -cpu max -m "$memory" -smp 2 \
    -nodefaults -no-user-config -display none -no-reboot \
    -kernel "$vmlinux" -initrd "$work/initramfs.cpio" \
    -append "console=ttyS0 quiet panic=-1 cgroup_no_v1=all cryptomgr.notests tsc=reliable rdinit=/init" \
    -serial "file:$work/console.log" -serial "file:$work/stdout.fifo" \
    -serial "file:$work/stderr.fifo" -serial "file:$work/status.fifo" \
    ${disk:+-drive "file=$disk,format=raw,if=virtio,cache=writeback"} \
    </dev/null >"$work/qemu.log" 2>&1 &
qemu_pid=$!
setpriv --pdeathsig KILL -- sleep "$timeout" &
timer_pid=$!

finished=
wait -n -p finished "$qemu_pid" "$timer_pid" || true
end_ns=$(date +%s%N)
if [ "$finished" = "$timer_pid" ]; then
    timer_pid=
    kill_and_reap "$qemu_pid"
    qemu_pid=
    timed_out=1
else
    qemu_pid=
    kill_and_reap "$timer_pid"
    timer_pid=
    timed_out=
fi
release_fifos
for pid in "${reader_pids[@]}"; do wait "$pid" || true; done
reader_pids=()
[ -z "$console_copy" ] || cp -- "$work/console.log" "$console_copy"

seconds() { awk -v ns="$1" 'BEGIN { printf "%.2f", ns / 1e9 }'; }
boot_ns=$(awk '$2 == "boot" { print $1; exit }' "$work/status.log")
guest_uptime=$(awk '$2 == "boot" { print $3; exit }' "$work/status.log")
exit_line=$(awk '$2 == "exit" { print $1, $3; exit }' "$work/status.log")
if [ -n "$boot_ns" ]; then
    timing="boot $(seconds $((boot_ns - start_ns))) s (guest uptime ${guest_uptime} s)"
    if [ -n "$exit_line" ]; then timing="$timing, command $(seconds $((${exit_line% *} - boot_ns))) s"; fi
    echo "run-in-vm: $timing, total $(seconds $((end_ns - start_ns))) s" >&2
fi

if [ -n "$timed_out" ]; then
    console_tail "timed out after $timeout s"
    exit 124
fi
if [ -z "$exit_line" ]; then
    console_tail "the VM ended without reporting the command's status"
    exit 125
fi
exit "${exit_line#* }"
