#!/bin/sh
# Extracts the uncompressed ELF vmlinux from the newest /boot/vmlinuz-* once, caches it, and prints its
# path (CACHE_DIR/vmlinux-<version>; the version names /lib/modules/<version>).
#   tests/vm/prepare-kernel.sh CACHE_DIR
# qemu boots an ELF vmlinux through its PVH entry point (Debian's config has CONFIG_PVH=y). Booting the
# bzImage instead makes the guest decompress it, which costs ~3 s per boot under TCG.
set -eu

die() { echo "prepare-kernel: $*" >&2; exit 1; }
[ $# -eq 1 ] || { echo "usage: $0 CACHE_DIR" >&2; exit 2; }
cache=$1

image=$(printf '%s\n' /boot/vmlinuz-* | sort -V | tail -n 1)
[ -f "$image" ] || die "no /boot/vmlinuz-* found: run tests/vm/install-deps.sh (linux-image-amd64)"
version=${image#/boot/vmlinuz-}
vmlinux=$cache/vmlinux-$version

# Re-extract when the package replaced the image under the same version.
if [ -f "$vmlinux" ] && [ -n "$(find "$vmlinux" -newer "$image")" ]; then
    echo "$vmlinux"
    exit 0
fi

mkdir -p -- "$cache"
tmp=$(mktemp "$cache/.vmlinux.XXXXXX")
trap 'rm -f -- "$tmp"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

is_elf() { [ "$(od -An -tx1 -N4 -- "$1" | tr -d ' \n')" = 7f454c46 ]; }

# A bzImage is a small decompressor followed by the compressed kernel: find each place where the
# compressor's magic number occurs and try to decompress from there until the result is an ELF file.
# The decompressors complain about the trailing data after the stream; only the output matters.
try_format() { # MAGIC (grep -P bytes) DECOMPRESSOR...
    magic=$1
    shift
    command -v "$1" >/dev/null 2>&1 || return 1
    for offset in $(LC_ALL=C grep -obUaP "$magic" -- "$image" | cut -d: -f1); do
        tail -c "+$((offset + 1))" -- "$image" | "$@" > "$tmp" 2>/dev/null || true
        is_elf "$tmp" && return 0
    done
    return 1
}

try_format '\xfd7zXZ\x00' xz -dc ||
    try_format '\x28\xb5\x2f\xfd' zstd -dc ||
    try_format '\x1f\x8b\x08' gzip -dc ||
    try_format '\x02\x21\x4c\x18' lz4 -dc ||
    die "could not find a compressed ELF kernel in $image (xz, zstd, gzip, lz4 tried)"

# Without the PVH note (XEN_ELFNOTE_PHYS32_ENTRY, type 18) qemu refuses to boot the ELF file.
if command -v readelf >/dev/null 2>&1; then
    readelf -n -- "$tmp" 2>/dev/null | grep -q 'Xen.*(0x00000012)' ||
        die "$image has no PVH entry point (CONFIG_PVH): qemu cannot boot its vmlinux directly"
fi

chmod 0644 "$tmp"
mv -f -- "$tmp" "$vmlinux"
echo "$vmlinux"
