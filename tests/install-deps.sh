#!/bin/sh
# Installs what husk needs on Debian 12: build dependencies, plus test tools with --tests, plus what
# tests/fresh-machine.sh and tests/deb-fresh-root.sh need on the host with --fresh-machine, plus what
# `dpkg-buildpackage -b` needs to build the Debian package with --deb (debian/control's Build-Depends).
#   tests/install-deps.sh [--tests] [--fresh-machine] [--deb]
set -eu
# file: bundles/build-rootfs.sh checks that busybox is statically linked; go-md2man: the build makes husk(8)
# from docs/husk.8.md with it.
packages="meson ninja-build g++ pkg-config libcap-dev libseccomp-dev libyajl-dev
          busybox-static file go-md2man"
for arg in "$@"; do
    case $arg in
        # catch2: unit tests; iproute2: namespace-join tests; runc: the reference in the benchmark;
        # golang-github-containers-common: podman's default seccomp profile (/usr/share/containers/seccomp.json);
        # stress-ng: the CPU hog beside tests/bench.sh's CPU budget figures; python3-pytest: the Python
        # module's tests (bindings/python); python3-minimal: what bundles/build-rootfs.sh --python copies;
        # man-db: the install test renders `man husk` from the installed page; uidmap: newuidmap/newgidmap for the
        # rootless tests' user with subordinate ids; acl: setfacl for the binary-protection test.
        --tests) packages="$packages catch2 iproute2 runc golang-github-containers-common stress-ng
                           python3-pytest python3-minimal man-db uidmap acl" ;;
        # debootstrap: the fresh Debian root; git: the clean clone of the commit under test.
        --fresh-machine) packages="$packages debootstrap git" ;;
        # build-essential: dpkg-buildpackage checks it is installed (and it brings dpkg-dev); debhelper: dh and
        # debhelper-compat; dh-python: dh_python3 (dh-sequence-python3); python3: meson's python module.
        --deb) packages="$packages build-essential debhelper dh-python python3" ;;
        *) echo "usage: $0 [--tests] [--fresh-machine] [--deb]" >&2; exit 2 ;;
    esac
done
. "$(dirname "$0")/install-missing.sh"
# shellcheck disable=SC2086
install_missing $packages
