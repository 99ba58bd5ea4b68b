#!/bin/sh
# The `run -it` row of podman.sh, 50 times in a row for each runtime: a short-lived terminal container's output
# must reach podman every time (its first bytes against the console's hand-off to conmon).
#   tests/clients/in-vm.sh podman-tty.sh --client podman --client conmon --client catatonit --client runc \
#       --client script --file /usr/share/containers/seccomp.json [--build DIR] [--memory MB]
# shellcheck disable=SC2034
PODMAN_ROW=run_tty PODMAN_REPEAT=${PODMAN_REPEAT:-50}
# shellcheck source=tests/clients/podman.sh
. ./podman.sh
