#!/bin/sh
# Installs what husk needs on Debian 12: build dependencies, plus test tools with --tests.
#   tests/install-deps.sh [--tests]
set -eu
packages="meson ninja-build g++ pkg-config libcap-dev libseccomp-dev libyajl-dev libmnl-dev
          libboost-program-options-dev busybox-static"
if [ "${1:-}" = "--tests" ]; then
    # catch2: unit tests; iproute2: namespace-join tests; runc: the reference in the benchmark.
    packages="$packages catch2 iproute2 runc"
    # stress-ng: the CPU hog beside tests/bench.sh's CPU budget figures.
    packages="$packages stress-ng"
fi
missing=
for p in $packages; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
if [ -n "$missing" ]; then
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    # shellcheck disable=SC2086
    apt-get install -y -qq --no-install-recommends $missing
fi
