#!/bin/sh
# Builds the images the client suites run, as docker-archive tars, from Debian packages (never a
# downloaded image):
#   tests/clients/busybox-image.sh OUT_DIR           -> OUT_DIR/busybox.tar, localhost/busybox:latest, from
#                                                       busybox-static (bundles/build-rootfs.sh)
#   tests/clients/busybox-image.sh --pause OUT_DIR   -> OUT_DIR/pause.tar, localhost/pause:latest: Debian's
#                                                       static catatonit alone, run as `catatonit -P` (its
#                                                       pause mode), the CRI suite's sandbox image
# `ctr images import`, `podman load` and `docker load` all read this format.
# The same input gives the same bytes: every tar is sorted by name, with mtime 0 and uid/gid 0, so the
# layer's digest (and the image id) does not change from run to run. Writes only below OUT_DIR.
# The archive's shape (docker save, v1.2): manifest.json naming the config and the layers,
# <config digest>.json (the image config, its rootfs.diff_ids = the layers' digests), <layer digest>/layer.tar.
set -eu
image=busybox
if [ "${1:-}" = --pause ]; then image=pause; shift; fi
[ $# -eq 1 ] || { echo "usage: $0 [--pause] OUT_DIR" >&2; exit 2; }
top=$(cd "$(dirname "$0")/../.." && pwd)
out=$1
umask 022
mkdir -p -- "$out"
work=$(mktemp -d "$out/$image-image.XXXXXX")
trap 'rm -rf -- "$work"' EXIT

mkdir "$work/rootfs"
if [ $image = busybox ]; then
    "$top/bundles/build-rootfs.sh" "$work/rootfs" >/dev/null
    config='"Env":["PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"],"Cmd":["sh"],"WorkingDir":"/"'
    source="busybox-static"
else
    catatonit=$(command -v catatonit || echo /usr/bin/catatonit)
    [ -x "$catatonit" ] || { echo "$0: catatonit missing: run tests/clients/install-deps.sh" >&2; exit 1; }
    # A static binary: the image needs nothing else (file(1) is not assumed; ldd says so for a static one).
    if ldd "$catatonit" > /dev/null 2>&1; then echo "$0: $catatonit is not static" >&2; exit 1; fi
    cp "$catatonit" "$work/rootfs/catatonit"
    config='"Entrypoint":["/catatonit","-P"],"WorkingDir":"/"'
    source="catatonit"
fi

# GNU tar; --format=gnu keeps long link names without the pax headers that would carry timestamps.
deterministic_tar() { # ARCHIVE DIR ENTRY...
    archive=$1 dir=$2
    shift 2
    tar --create --file="$archive" --directory="$dir" --format=gnu --sort=name --mtime=@0 \
        --owner=0 --group=0 --numeric-owner "$@"
}
mkdir "$work/archive"
deterministic_tar "$work/layer.tar" "$work/rootfs" .
layer=$(sha256sum "$work/layer.tar" | cut -d' ' -f1)
mkdir "$work/archive/$layer"
mv "$work/layer.tar" "$work/archive/$layer/layer.tar"

# One line, no trailing spaces: its digest is the image id. Debian's architecture names are Go's (amd64, arm64).
arch=$(dpkg --print-architecture)
printf '%s' '{"architecture":"'"$arch"'","os":"linux","created":"1970-01-01T00:00:00Z",'\
'"config":{'"$config"'},'\
'"rootfs":{"type":"layers","diff_ids":["sha256:'"$layer"'"]},'\
'"history":[{"created":"1970-01-01T00:00:00Z","created_by":"tests/clients/busybox-image.sh ('"$source"')"}]}' \
    > "$work/config.json"
config=$(sha256sum "$work/config.json" | cut -d' ' -f1)
mv "$work/config.json" "$work/archive/$config.json"
printf '[{"Config":"%s.json","RepoTags":["localhost/%s:latest"],"Layers":["%s/layer.tar"]}]' \
    "$config" "$image" "$layer" > "$work/archive/manifest.json"

# Entries without a "./" prefix: the readers look up "manifest.json" by that exact name.
deterministic_tar "$work/$image.tar" "$work/archive" manifest.json "$config.json" "$layer"
mv -f -- "$work/$image.tar" "$out/$image.tar"
