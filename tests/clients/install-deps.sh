#!/bin/sh
# Installs the real clients the client suites drive in the VM (tests/clients/; idempotent, like
# tests/install-deps.sh). Nothing here runs on the host: the binaries are staged into the VM.
#   containerd        containerd, containerd-shim-runc-v2 and ctr (tests/clients/ctr.sh)
#   runc              the reference runtime, the matrix's other column
#   podman, conmon    podman and its per-container monitor (the podman suite)
#   catatonit         the init of `podman run --init` and of a pod's infra container
#   bsdutils          script(1): a pty on the client's side for `ctr task exec -t`, `podman exec -it`
# Installing containerd does not start it: the package only enables a systemd unit, and there is no
# systemd here (nor in the VM).
#   tests/clients/install-deps.sh
set -eu
packages="containerd runc podman conmon catatonit bsdutils"
. "$(dirname "$0")/../install-missing.sh"
# shellcheck disable=SC2086
install_missing $packages
