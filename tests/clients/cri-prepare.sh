#!/bin/bash
# Prepares what the CRI suite (cri.sh) needs in the guest; in-vm.sh --prepare runs it on the host:
#   tests/clients/cri-prepare.sh OUT_DIR
# OUT_DIR gets pause.tar (the sandbox image, busybox-image.sh --pause), cri.py with its stubs, cri_pb2.py and cri_pb2_grpc.py (generated from cri.proto by
# python3-grpc-tools), and python.tar: Debian's python3 with exactly what the client loads, at the host's
# paths, which cri.sh unpacks at the guest's /. What it loads is found by running the client's code once
# on the host (a call to a socket that does not exist) and listing the files of every module it imported,
# their compiled .pyc, and the shared libraries of the interpreter and of each extension module. Staging
# all of /usr/lib/python3.11 and grpc instead would put some 60 MB more into the guest's RAM.
# Needs python3, python3-grpcio, python3-grpc-tools (tests/clients/install-deps.sh). Writes only below
# OUT_DIR.
set -euo pipefail
[ $# -eq 1 ] || { echo "usage: $0 OUT_DIR" >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)
out=$1
# Debian's interpreter, not whatever python3 comes first in PATH: python3-grpcio is built for it.
python=/usr/bin/python3
[ -x "$python" ] || { echo "cri-prepare: $python missing: run tests/clients/install-deps.sh" >&2; exit 1; }
python=$(readlink -f "$python")
work=$(mktemp -d "$out/cri-prepare.XXXXXX")
trap 'rm -rf -- "$work"' EXIT

"$python" -m grpc_tools.protoc -I "$here" --python_out="$work" --grpc_python_out="$work" "$here/cri.proto"
cp "$here/cri.py" "$work/"

# Every file the client imports, then the interpreter's landmarks (os.py, lib-dynload) that tell it
# where its prefix is.
(cd "$work" && "$python" -S -B - > "$work/modules") <<'EOF'
import sys
sys.argv = ["cri.py", "--address", "unix:///nonexistent/cri.sock", "version"]
import io, contextlib
import cri
with contextlib.redirect_stderr(io.StringIO()):
    status = cri.main(sys.argv[1:])
assert status == 2, "a call to a missing socket should fail"
for module in list(sys.modules.values()):
    path = getattr(module, "__file__", None)
    if path and path.startswith("/"):
        print(path)
EOF
prefix_lib=$("$python" -S -c 'import sys, sysconfig; print(sysconfig.get_path("stdlib"))')
{
    grep -v "^$work/" "$work/modules" | sort -u | while read -r file; do
        echo "$file"
        # The compiled form beside it, as Debian installed it: under TCG, compiling grpc's sources at
        # every start would cost seconds.
        case $file in
            *.py) cached=$("$python" -S -c 'import importlib.util, sys; print(importlib.util.cache_from_source(sys.argv[1]))' "$file")
                  [ ! -f "$cached" ] || echo "$cached" ;;
        esac
    done
    echo "$prefix_lib/os.py"
    echo "$python"
} > "$work/files"
# Shared libraries of the interpreter and of the extension modules, with the symlinks that name them.
grep -E '(\.so(\.[0-9]+)*|/python3\.[0-9]+)$' "$work/files" | while read -r object; do
    ldd "$object" 2>/dev/null | awk '/=> \// { print $3 } /^\t\/[^ ]+ \(/ { print $1 }'
done | sort -u | while read -r lib; do
    echo "$lib"
    real=$(readlink -f "$lib")
    [ "$real" = "$lib" ] || echo "$real"
done > "$work/libraries"
cat "$work/libraries" >> "$work/files"
# Paths relative to /, each entry alone (no recursion), symlinks kept as symlinks (their targets are
# listed too). Debian's /lib is a symlink to usr/lib, as in the guest: entries go through usr/lib, so
# that unpacking never has to follow a symlink.
sed 's|^/lib/|/usr/lib/|; s|^/lib64/|/usr/lib64/|; s|^/||' "$work/files" | sort -u > "$work/entries"
echo "${prefix_lib#/}/lib-dynload" >> "$work/entries"
tar --create --file="$out/python.tar" --directory=/ --no-recursion --files-from="$work/entries"
cp "$work/cri.py" "$work/cri_pb2.py" "$work/cri_pb2_grpc.py" "$out/"
"$here/busybox-image.sh" --pause "$out"
