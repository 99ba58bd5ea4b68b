#!/bin/sh
# Installs what the VM harness needs on Debian 12 (idempotent, like tests/install-deps.sh):
#   qemu-system-x86    the emulator (TCG: no KVM is needed)
#   linux-image-amd64  the guest kernel, booted from /boot; its cgroup v2 hierarchy is the point
#   busybox-static     the guest's userland and the test containers' rootfs
#   kmod, cpio         modprobe --show-depends for kernel modules; building the initramfs
#   xz-utils           prepare-kernel.sh unpacks the vmlinux from Debian's xz-compressed bzImage
#   binutils           readelf (the kernel's PVH note) and strip (debug info out of the initramfs)
#   tests/vm/install-deps.sh
# tests/fresh-machine.sh checks that this list is complete on a minbase Debian 12.
set -eu
packages="qemu-system-x86 linux-image-amd64 busybox-static kmod cpio xz-utils binutils"
. "$(dirname "$0")/../install-missing.sh"
# shellcheck disable=SC2086
install_missing $packages
