#!/bin/sh
# Installs the real clients the client suites drive in the VM (tests/clients/; idempotent, like
# tests/install-deps.sh). Nothing here runs on the host: the binaries are staged into the VM.
#   containerd        containerd, containerd-shim-runc-v2 and ctr (ctr.sh), and the CRI plugin (cri.sh)
#   runc              the reference runtime, the matrix's other column
#   podman, conmon    podman and its per-container monitor (the podman suite)
#   catatonit         the init of `podman run --init` and of a pod's infra container; the CRI suite's pause
#   bsdutils          script(1): a pty on the client's side for `ctr task exec -t`, `podman exec -it`
#   docker.io         dockerd and the docker CLI (docker.sh), with docker-init (tini)
#   apparmor          apparmor_parser: dockerd loads its docker-default profile with it (docker.sh)
#   python3-grpcio, python3-grpc-tools, python3-protobuf
#                     the CRI suite's client, cri.py, and the generator of its stubs from cri.proto
#   tests/clients/install-deps.sh
#
# A daemon must never start on the host: dockerd would set up a bridge and iptables rules and write the
# host's cgroups. containerd's package only enables a systemd unit, and there is no systemd here. But
# docker.io (and apparmor) ship init scripts, which their postinst starts through invoke-rc.d unless
# /usr/sbin/policy-rc.d forbids it (invoke-rc.d(8): exit 101, "action forbidden"). So the packages are
# installed with such a policy in place (a temporary one, when the machine has none), and a docker.io
# installed here is kept from starting at boot too: its init script is disabled and its systemd units are
# masked (a link to /dev/null, which systemd reads without running). A Docker the machine had already
# installed is left as it was.
set -eu
packages="containerd runc podman conmon catatonit bsdutils docker.io apparmor python3-grpcio python3-grpc-tools
python3-protobuf"
. "$(dirname "$0")/../install-missing.sh"

policy=/usr/sbin/policy-rc.d
if [ ! -e "$policy" ]; then
    printf '#!/bin/sh\n# tests/clients/install-deps.sh: no service starts while it installs packages.\nexit 101\n' > "$policy"
    chmod 0755 "$policy"
    trap 'rm -f "$policy"' EXIT
fi
had_docker=$(dpkg-query -W -f='${Status}' docker.io 2>/dev/null || true)
# shellcheck disable=SC2086
install_missing $packages
case $had_docker in
    *"install ok installed"*) ;;
    *)
        if command -v update-rc.d > /dev/null; then update-rc.d docker disable > /dev/null 2>&1 || true; fi
        mkdir -p /etc/systemd/system
        for unit in docker.service docker.socket; do
            [ -e "/etc/systemd/system/$unit" ] || ln -s /dev/null "/etc/systemd/system/$unit"
        done ;;
esac
