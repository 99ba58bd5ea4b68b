#!/bin/sh
# Builds the image the client suites run: localhost/busybox:latest as a docker-archive tar, from Debian's
# busybox-static (bundles/build-rootfs.sh; never a downloaded image). Both `ctr images import` and
# `podman load` read this format.
#   tests/clients/busybox-image.sh OUT_DIR      -> OUT_DIR/busybox.tar
# The same busybox gives the same bytes: every tar is sorted by name, with mtime 0 and uid/gid 0, so the
# layer's digest (and the image id) does not change from run to run. Writes only below OUT_DIR.
# The archive's shape (docker save, v1.2): manifest.json naming the config and the layers,
# <config digest>.json (the image config, its rootfs.diff_ids = the layers' digests), <layer digest>/layer.tar.
set -eu
[ $# -eq 1 ] || { echo "usage: $0 OUT_DIR" >&2; exit 2; }
top=$(cd "$(dirname "$0")/../.." && pwd)
out=$1
umask 022
mkdir -p -- "$out"
work=$(mktemp -d "$out/busybox-image.XXXXXX")
trap 'rm -rf -- "$work"' EXIT

"$top/bundles/build-rootfs.sh" "$work/rootfs" >/dev/null
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
'"config":{"Env":["PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"],"Cmd":["sh"],"WorkingDir":"/"},'\
'"rootfs":{"type":"layers","diff_ids":["sha256:'"$layer"'"]},'\
'"history":[{"created":"1970-01-01T00:00:00Z","created_by":"tests/clients/busybox-image.sh (busybox-static)"}]}' \
    > "$work/config.json"
config=$(sha256sum "$work/config.json" | cut -d' ' -f1)
mv "$work/config.json" "$work/archive/$config.json"
printf '[{"Config":"%s.json","RepoTags":["localhost/busybox:latest"],"Layers":["%s/layer.tar"]}]' \
    "$config" "$layer" > "$work/archive/manifest.json"

# Entries without a "./" prefix: the readers look up "manifest.json" by that exact name.
deterministic_tar "$work/busybox.tar" "$work/archive" manifest.json "$config.json" "$layer"
mv -f -- "$work/busybox.tar" "$out/busybox.tar"
