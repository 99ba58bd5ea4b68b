#!/bin/sh
# Builds a minimal container root filesystem from Debian's busybox-static (never a downloaded image).
#   bundles/build-rootfs.sh [--python] [--probe PATH] [DEST]
# DEST defaults to bundles/busybox/rootfs next to this script (bundles/python/rootfs with --python). The
# probe (tests/probe) is copied to DEST/probe when --probe PATH or $HUSK_PROBE names it. --python adds
# Debian's minimal Python 3 (the files of the installed python3-minimal packages, the shared libraries
# they load, and their compiled .pyc). Idempotent; only ever writes below DEST.
set -eu

usage() { echo "usage: $0 [--python] [--probe PATH] [DEST]" >&2; exit 2; }
die() { echo "build-rootfs: $*" >&2; exit 1; }

probe=${HUSK_PROBE:-}
dest=
python=
while [ $# -gt 0 ]; do
    case $1 in
        --probe) [ $# -ge 2 ] || usage; probe=$2; shift 2 ;;
        --probe=*) probe=${1#--probe=}; shift ;;
        --python) python=1; shift ;;
        -h|--help) usage ;;
        -*) usage ;;
        *) [ -z "$dest" ] || usage; dest=$1; shift ;;
    esac
done
if [ -z "$dest" ]; then
    if [ -n "$python" ]; then dest=$(dirname "$0")/python/rootfs; else dest=$(dirname "$0")/busybox/rootfs; fi
fi

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

[ -n "$python" ] || exit 0

# --python: Debian's python3-minimal, as installed on this host. Its packages list their files
# (dpkg-query -L); the interpreter and the extension modules of the minimal set name the shared libraries
# they load (ldd). Nothing else of the host's Python comes along (no dist-packages, no full stdlib).
[ -L /usr/bin/python3 ] || die "/usr/bin/python3 not found: apt-get install python3-minimal"
interpreter=$(readlink /usr/bin/python3)  # python3.11
version=${interpreter#python}
case $version in
    3.[0-9]|3.[0-9][0-9]) ;;
    *) die "/usr/bin/python3 points to $interpreter, not to a python3.N of Debian's python3-minimal" ;;
esac
packages="python3-minimal python$version-minimal libpython$version-minimal"
for p in $packages; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
        die "package $p is not installed: apt-get install python3-minimal"
done
# The compiled modules Debian's postinst wrote beside each .py (not in the package lists); their sources
# keep their mtimes below, so Python takes them as up to date and never tries to write the read-only root.
pyc_tag=cpython-$(echo "$version" | tr -d .)

# Debian has merged /usr: /lib and /lib64 are links into /usr, as ld.so and ldd name them.
real_dir usr/lib
real_dir usr/lib64
link_dir lib usr/lib
link_dir lib64 usr/lib64

# Directories below DEST are made one component at a time, each checked to be a real directory.
made_dirs=
make_parents() { # DEST_RELATIVE_DIR
    case " $made_dirs " in *" $1 "*) return 0 ;; esac
    path=
    old_ifs=$IFS
    IFS=/
    for part in $1; do
        path=$path${path:+/}$part
        real_dir "$path"
    done
    IFS=$old_ifs
    made_dirs="$made_dirs $1"
}
# The host path as it lies in the rootfs: /lib/x and /lib64/x live under usr/, as on the host.
rootfs_path() { # HOST_PATH
    case $1 in
        /lib/*|/lib64/*|/bin/*|/sbin/*) echo "usr$1" ;;
        *) echo "${1#/}" ;;
    esac
}
# Copies a host file to the same path below DEST: a symlink stays a symlink (python3 -> python3.11) unless
# DEREF is given (a library found by ldd is copied under the name the loader asks for).
copy_host_file() { # HOST_PATH [deref]
    rel=$(rootfs_path "$1")
    make_parents "$(dirname -- "$rel")"
    if [ -L "$1" ] && [ $# -lt 2 ]; then
        target=$(readlink -- "$1")
        [ -L "$dest/$rel" ] && [ "$(readlink -- "$dest/$rel")" = "$target" ] && return 0
        ln -sfn -- "$target" "$dest/$rel.tmp.$$"
    else
        [ -L "$dest/$rel" ] || ! cmp -s -- "$1" "$dest/$rel" 2>/dev/null || return 0
        cp -pL -- "$1" "$dest/$rel.tmp.$$"
    fi
    mv -f -- "$dest/$rel.tmp.$$" "$dest/$rel"
}

# Only the interpreter, its library and its configuration: not the documentation, binfmt or Debian's
# py3compile helpers.
# shellcheck disable=SC2086 # $packages is a list of names
files=$(dpkg-query -L $packages | while IFS= read -r f; do
    case $f in
        /usr/bin/python3*|/usr/lib/python3*|/etc/python3*)
            if [ -L "$f" ] || [ ! -d "$f" ]; then echo "$f"; fi ;;
    esac
done)
[ -n "$files" ] || die "the packages $packages list no files"
echo "$files" | while IFS= read -r f; do
    copy_host_file "$f"
    case $f in
        *.py)
            pyc=$(dirname -- "$f")/__pycache__/$(basename -- "$f" .py).$pyc_tag.pyc
            if [ -f "$pyc" ]; then copy_host_file "$pyc"; fi
            ;;
    esac
done

# The shared libraries of the interpreter and of each extension module, with the dynamic loader itself.
libraries=$(echo "$files" | grep -e "/usr/bin/python$version\$" -e '\.so$' | while IFS= read -r f; do
    ldd "$f" | sed -n -e 's|.*=> \(/[^ ]*\) (0x.*|\1|p' -e 's|^[[:space:]]*\(/[^ ]*\) (0x.*|\1|p'
done | sort -u)
[ -n "$libraries" ] || die "ldd found no libraries for /usr/bin/python$version"
echo "$libraries" | while IFS= read -r lib; do
    copy_host_file "$lib" deref
done
