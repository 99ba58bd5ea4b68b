#!/bin/sh
# Builds a minimal container root filesystem from Debian's busybox-static (never a downloaded image).
#   bundles/build-rootfs.sh [--probe PATH] [DEST]
# DEST defaults to bundles/busybox/rootfs next to this script. The probe (tests/probe) is copied to
# DEST/probe when --probe PATH or $HUSK_PROBE names it. Idempotent; only ever writes below DEST.
set -eu

usage() { echo "usage: $0 [--probe PATH] [DEST]" >&2; exit 2; }
die() { echo "build-rootfs: $*" >&2; exit 1; }

probe=${HUSK_PROBE:-}
dest=
while [ $# -gt 0 ]; do
    case $1 in
        --probe) [ $# -ge 2 ] || usage; probe=$2; shift 2 ;;
        --probe=*) probe=${1#--probe=}; shift ;;
        -h|--help) usage ;;
        -*) usage ;;
        *) [ -z "$dest" ] || usage; dest=$1; shift ;;
    esac
done
[ -n "$dest" ] || dest=$(dirname "$0")/busybox/rootfs

busybox=/bin/busybox
[ -x "$busybox" ] || die "$busybox not found: apt-get install busybox-static"
# The dynamic busybox package would need the host's libc inside the rootfs.
if ! LC_ALL=C file -L "$busybox" 2>/dev/null | grep -q 'statically linked'; then
    command -v file >/dev/null 2>&1 && die "$busybox is not statically linked: apt-get install busybox-static"
fi

# Refuse anything that could make us write outside DEST: "/", a symlinked DEST, or a DEST that
# resolves to a system directory.
[ -L "$dest" ] && die "refusing: $dest is a symlink"
mkdir -p -- "$dest"
dest=$(cd -- "$dest" && pwd -P)
case $dest in
    /|/bin|/boot|/dev|/etc|/home|/lib*|/opt|/proc|/root|/run|/sbin|/srv|/sys|/tmp|/usr|/usr/*|/var)
        die "refusing to build a rootfs in $dest" ;;
esac

# Every directory we write into must be a real directory below DEST, never a symlink out of it.
real_dir() {
    if [ -L "$dest/$1" ]; then die "refusing: $dest/$1 is a symlink"; fi
    mkdir -p -- "$dest/$1"
}
# Merged-/usr layout like Debian: /bin -> usr/bin, /sbin -> usr/sbin.
link_dir() {
    if [ -L "$dest/$1" ]; then
        [ "$(readlink -- "$dest/$1")" = "$2" ] || die "refusing: $dest/$1 points elsewhere"
    elif [ -e "$dest/$1" ]; then
        die "refusing: $dest/$1 exists and is not a symlink to $2"
    else
        ln -s -- "$2" "$dest/$1"
    fi
}

for d in usr usr/bin usr/sbin etc proc sys dev tmp run root var var/tmp home mnt; do real_dir "$d"; done
link_dir bin usr/bin
link_dir sbin usr/sbin
chmod 0755 "$dest"
chmod 1777 "$dest/tmp" "$dest/var/tmp"
chmod 0700 "$dest/root"

# Replace files by rename so an existing symlink at the target is never followed.
install_file() { # SRC DEST_RELATIVE MODE
    cmp -s -- "$1" "$dest/$2" 2>/dev/null && [ ! -L "$dest/$2" ] && return 0
    cp -- "$1" "$dest/$2.tmp.$$"
    chmod "$3" "$dest/$2.tmp.$$"
    mv -f -- "$dest/$2.tmp.$$" "$dest/$2"
}
install_file "$busybox" usr/bin/busybox 0755

# One symlink per applet, all to /usr/bin/busybox. `busybox --install -s DIR` creates them in one
# process (a shell loop over ~270 applets takes a second); it links to its own resolved path, so
# check that this is what the container will see, and fall back to the loop otherwise.
if [ ! -L "$dest/usr/bin/sh" ]; then
    "$busybox" --install -s "$dest/usr/bin"
    target=$(readlink -- "$dest/usr/bin/sh" || true)
    if [ "$target" != /usr/bin/busybox ] && [ "$target" != /bin/busybox ]; then
        for applet in $("$busybox" --list); do
            [ "$applet" = busybox ] || ln -sfn busybox "$dest/usr/bin/$applet"
        done
    fi
fi

write_file() { # DEST_RELATIVE MODE (content on stdin)
    cat > "$dest/$1.tmp.$$"
    chmod "$2" "$dest/$1.tmp.$$"
    mv -f -- "$dest/$1.tmp.$$" "$dest/$1"
}
write_file etc/passwd 0644 <<'PASSWD'
root:x:0:0:root:/root:/bin/sh
user:x:1000:1000:user:/home:/bin/sh
nobody:x:65534:65534:nobody:/nonexistent:/bin/false
PASSWD
write_file etc/group 0644 <<'GROUP'
root:x:0:
tty:x:5:
users:x:100:
user:x:1000:
nogroup:x:65534:
GROUP
write_file etc/hosts 0644 <<'HOSTS'
127.0.0.1 localhost
::1 localhost
HOSTS

if [ -n "$probe" ]; then
    [ -f "$probe" ] || die "probe $probe not found (build it: ninja -C BUILD tests/probe)"
    install_file "$probe" probe 0755
fi
