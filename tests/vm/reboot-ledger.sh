#!/bin/bash
# A tenant's ledger survives a hard reset of the VM (docs/tenants.md, "Reboots"; the meson test vm-reboot).
# Two boots sharing one disk image (ext4, husk's --root on it): the first charges runs, leaves one live and
# resets the VM with sysrq b; the second checks that the charges are there and that the live run is charged
# its budgets. The guest's half: tests/vm/reboot/guest.sh.
#   tests/vm/reboot-ledger.sh [--build DIR]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(dirname "$(dirname "$here")")
build=$top/build
if [ "${1-}" = --build ] && [ $# -ge 2 ]; then build=$2; fi
command -v mkfs.ext4 >/dev/null || { echo "reboot-ledger: mkfs.ext4 not found (e2fsprogs)" >&2; exit 125; }

work=$(mktemp -d /tmp/husk-reboot.XXXXXX)
trap 'rm -rf -- "$work"' EXIT
disk=$work/disk.img
truncate -s 64M "$disk"
mkfs.ext4 -q -F "$disk"
# virtio_pci and virtio_blk give /dev/vda, ext4 the filesystem (all modules in Debian's kernel).
vm() { "$here/run-in-vm.sh" --build "$build" --timeout 240 --disk "$disk" --files "$here/reboot" \
    --module virtio_pci --module virtio_blk --module ext4 -- "$@"; }

# The first boot ends in the reset, so it reports no status (125): it passed if it got as far as "crashing".
status=0
vm sh guest.sh before > "$work/before.out" 2> "$work/before.err" || status=$?
cat "$work/before.out"
if [ "$status" -ne 125 ] || ! grep -qx crashing "$work/before.out"; then
    cat "$work/before.err" >&2
    echo "reboot-ledger: the first boot did not reach its reset (status $status)" >&2
    exit 1
fi
grep '^run-in-vm:' "$work/before.err" | head -n 1 >&2
read -r cpu wall < <(sed -n 's/^ledger: before: cpuUsec \([0-9]*\) wallUsec \([0-9]*\) .*/\1 \2/p' "$work/before.out")
vm sh guest.sh after "$cpu" "$wall"
