#!/bin/bash
# Runs one client suite (tests/clients/SCRIPT) in the VM harness (docs/vm-harness.md):
#   tests/clients/in-vm.sh SCRIPT [--client NAME]... [--file PATH]... [run-in-vm.sh OPTION...]
# --client NAME   stage the program NAME from the host's PATH (e.g. containerd, ctr, runc, podman) into
#                 the guest's /usr/local/bin, with its shared libraries
# --file PATH     copy the host's file PATH into /files (e.g. podman's default seccomp profile)
# --prepare NAME  run this directory's NAME OUT_DIR on the host first, OUT_DIR being what becomes /files
#                 (e.g. cri-prepare.sh: the CRI suite's client and pause image)
# The guest gets, in /files: this directory's shell files (lib.sh, the suites) and busybox.tar, the
# image built by busybox-image.sh; SCRIPT runs there under the guest's busybox sh. Every other option
# goes to run-in-vm.sh (--build, --memory, --timeout, --stage, ...). The exit status is run-in-vm.sh's.
# Host side, nothing outlives the run but what run-in-vm.sh writes itself: the temp dir is removed.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
[ $# -ge 1 ] || { echo "usage: $0 SCRIPT [--client NAME]... [run-in-vm.sh OPTION...]" >&2; exit 2; }
script=$1
shift
[ -f "$here/$script" ] || { echo "in-vm: no suite $here/$script" >&2; exit 2; }
options=()
host_files=()
prepare=()
while [ $# -gt 0 ]; do
    case $1 in
        --client)
            [ $# -ge 2 ] || { echo "in-vm: --client needs a NAME" >&2; exit 2; }
            # runc lives in /usr/sbin, which a non-root PATH may lack.
            program=$(PATH=$PATH:/usr/sbin:/sbin command -v "$2") ||
                { echo "in-vm: $2 not found: run tests/clients/install-deps.sh" >&2; exit 1; }
            options+=(--stage "$program")
            shift 2 ;;
        --file)
            if [ $# -lt 2 ] || [ ! -f "$2" ]; then echo "in-vm: --file needs an existing file" >&2; exit 2; fi
            host_files+=("$2")
            shift 2 ;;
        --prepare)
            if [ $# -lt 2 ] || [ ! -x "$here/$2" ]; then echo "in-vm: --prepare needs a script of $here" >&2; exit 2; fi
            prepare+=("$2")
            shift 2 ;;
        *) options+=("$1"); shift ;;
    esac
done

work=$(mktemp -d /tmp/husk-clients.XXXXXX)
trap 'rm -rf --one-file-system -- "$work"' EXIT
mkdir "$work/files"
cp -- "$here"/*.sh "$work/files/"
if [ ${#host_files[@]} -gt 0 ]; then cp -- "${host_files[@]}" "$work/files/"; fi
"$here/busybox-image.sh" "$work/files"
for name in ${prepare[@]+"${prepare[@]}"}; do "$here/$name" "$work/files"; done
status=0
"$here/../vm/run-in-vm.sh" "${options[@]}" --files "$work/files" -- sh "$script" || status=$?
exit "$status"
