#!/bin/bash
# The Debian package on fresh machines (docs/testing.md, "The Debian package"), as README says to make and
# install it, from a clean `git clone` of the commit under test:
#   1. in a pristine minbase root (tests/fresh-root.sh): `tests/install-deps.sh --deb`, then
#      `dpkg-buildpackage -b -us -uc`, which must print no warning (compiler, linker, debhelper, dpkg);
#   2. in another pristine root, which gets nothing of the first but the two .deb files:
#      `apt-get install ./husk_*.deb ./python3-husk-sandbox_*.deb` (their dependencies from Debian's
#      archive), then what a user does first: `husk sandbox -- /bin/echo` with its verdict, `man husk` (with
#      man-db, which a minbase root lacks), the bash completion, the Python module's run(); then
#      `apt-get purge` of both leaves none of their files.
# It prints each step's time, and the time from the clone to the installed husk's first verdict.
#   tests/deb-fresh-root.sh [--keep] [--commit REV]
# --keep        leave both roots (printed) for a look afterwards; they are removed otherwise
# --commit REV  the commit to test (default HEAD of this tree; uncommitted changes are not tested)
# Exit status: 0 when every check passed, 1 when one failed, 2 on a usage or set-up error.
# Everything it makes goes when it ends, even on failure: each root's pid namespace dies with its init, its
# mounts with its mount namespace, and both roots are deleted. Runs in the background of tests/run.sh.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/tests/fresh-root.sh"
fresh_start deb-fresh-root "$@"

# apt's downloads for these roots are kept apart from tests/fresh-machine.sh's: apt locks its download
# directory, and the two may run at once. Two runs of this script take turns.
archives=$fresh_cache/deb-archives
mkdir -p "$archives/partial"
exec 9> "$fresh_cache/deb-fresh-root.lock"
flock -n 9 || { echo "deb-fresh-root: waiting for another run of this script to end" >&2; flock 9; }

build_root=$work/build install_root=$work/install

now() { date +%s%3N; }  # milliseconds
seconds() { awk -v ms="$1" 'BEGIN { printf "%.1f", ms / 1000 }'; }
# run NAME ROOT LOG COMMAND...: COMMAND in ROOT (fresh_root_enter), its output in LOG; prints the time
# NAME took, and the last lines of LOG when it fails. Its time in ms is left in $took.
took=0
run() {
    local name=$1 root=$2 log=$3 began status=0
    shift 3
    began=$(now)
    fresh_root_enter "$root" "$archives" "$@" > "$log" 2>&1
    fresh_root_wait || status=$?
    took=$(( $(now) - began ))
    echo "deb-fresh-root: $name: $(seconds "$took") s, exit status $status"
    if [ "$status" != 0 ]; then tail -n 40 "$log"; echo "FAIL: $name (whole output: $log)"; fi
    return "$status"
}

# 1. The build root.
began=$(now)
fresh_root_unpack "$work" "$build_root" || fresh_die "cannot make the build root"
echo "deb-fresh-root: pristine build root: $(seconds $(( $(now) - began ))) s"
began=$(now)
git clone --quiet --no-hardlinks "$top" "$build_root/husk"
git -C "$build_root/husk" checkout --quiet --detach "$commit"
clone=$(( $(now) - began ))
echo "deb-fresh-root: testing $(git -C "$build_root/husk" log -1 --format='%h %s'); clone: $(seconds "$clone") s"
if [ "$commit" = "$(git -C "$top" rev-parse HEAD)" ] && ! git -C "$top" diff --quiet HEAD --; then
    echo "deb-fresh-root: note: the uncommitted changes in $top are not in the package"
fi
status=0
run "tests/install-deps.sh --deb" "$build_root" "$work/install-deps.log" \
    bash -c 'cd /husk && DEBIAN_FRONTEND=noninteractive tests/install-deps.sh --deb' || exit 1
deps=$took
run "dpkg-buildpackage -b -us -uc" "$build_root" "$work/build.log" \
    bash -c 'cd /husk && dpkg-buildpackage -b -us -uc' || exit 1
build=$took
# Warnings of any tool in the build. One is known and allowed: meson's advice to use cpp_std, which Debian 12's
# meson (1.0) cannot follow for C++23 (meson.build passes -std=c++2b itself).
known='WARNING: Consider using the built-in option for language standard version instead of using "-std=c++2b".'
if grep -n -i 'warning:' "$work/build.log" | grep -v -F -- "$known"; then
    echo "FAIL: the package build printed warnings (above; whole output: $work/build.log)"
    status=1
fi
# dpkg-buildpackage writes the packages beside the source tree: / of the build root. Files, not links.
mkdir "$work/debs"
for pattern in 'husk_*_*.deb' 'python3-husk-sandbox_*_all.deb'; do
    # shellcheck disable=SC2206 # (the pattern is meant to expand)
    found=("$build_root"/$pattern)
    if [ ${#found[@]} != 1 ] || [ ! -f "${found[0]}" ] || [ -L "${found[0]}" ]; then
        echo "FAIL: not one $pattern from dpkg-buildpackage: ${found[*]}"
        exit 1
    fi
    cp -- "${found[0]}" "$work/debs/"
done
echo "deb-fresh-root: built $(cd "$work/debs" && echo *)"
if [ -z "$keep" ]; then rm -rf --one-file-system -- "$build_root"; fi

# 2. The install root: a new directory in it holds the packages and the checks.
began=$(now)
fresh_root_unpack "$work" "$install_root" || fresh_die "cannot make the install root"
echo "deb-fresh-root: pristine install root: $(seconds $(( $(now) - began ))) s"
mkdir "$install_root/debs"
cp -- "$work/debs/"*.deb "$install_root/debs/"
cat > "$install_root/debs/check.sh" <<'CHECK'
set -u
now() { date +%s%3N; }
fail() { echo "FAIL: $*"; failed=1; }
failed=0
began=$(now)
# As README says: the packages by path, their dependencies from Debian's archive; man-db for `man husk`.
export DEBIAN_FRONTEND=noninteractive
if ! { apt-get update -qq && apt-get install -y -qq ./husk_*.deb ./python3-husk-sandbox_*.deb man-db; } \
        > /debs/apt.log 2>&1; then
    tail -n 30 /debs/apt.log
    echo "FAIL: apt-get install of the packages"
    exit 1
fi
installed=$(( $(now) - began ))
out=$(husk sandbox --verdict /root/verdict.json -- /bin/echo hi from the package)
rc=$?
echo "$installed $(( $(now) - began - installed ))" > /debs/times
[ "$rc" = 0 ] || fail "husk sandbox -- /bin/echo exited $rc"
[ "$out" = "hi from the package" ] || fail "husk sandbox -- /bin/echo printed '$out'"
python3 - <<'PY' || fail "the verdict of husk sandbox (above)"
import json
v = json.load(open("/root/verdict.json"))
assert v["exit"]["reason"] == "exited" and v["exit"]["code"] == 0 and v["status"] == 0, v
assert v["security"]["userNamespace"] is True and v["security"]["seccomp"] == "filter", v
PY
echo "husk sandbox: $out; verdict $(cat /root/verdict.json)"

# The binary is the packaged version (debian/changelog agrees with meson.build's version) and finds its
# shared libraries through the package's Depends.
version=$(dpkg-query -W -f='${Version}' husk)
[ "$(husk --version | head -n 1)" = "husk version $version" ] ||
    fail "husk --version says '$(husk --version | head -n 1)', the package is $version"
if ldd /usr/bin/husk | grep 'not found'; then fail "libraries of /usr/bin/husk not found (above)"; fi
# containerd's shim name for husk (runtime io.containerd.husk.v2), a symlink beside it, owned by the package.
[ "$(readlink /usr/bin/containerd-shim-husk-v2)" = husk ] ||
    fail "/usr/bin/containerd-shim-husk-v2 is not a symlink to husk: '$(readlink /usr/bin/containerd-shim-husk-v2)'"
dpkg -S /usr/bin/containerd-shim-husk-v2 > /dev/null 2>&1 || fail "no package owns /usr/bin/containerd-shim-husk-v2"

# husk(8), as `man husk` finds and renders it.
[ "$(man -w husk)" = /usr/share/man/man8/husk.8.gz ] || fail "man -w husk: '$(man -w husk)'"
if MANWIDTH=80 man husk > /root/man.txt 2> /root/man.err; then
    tr -s ' ' < /root/man.txt > /root/man.squeezed
    for text in NAME SYNOPSIS COMMANDS 'EXIT STATUS' 'husk - an OCI container runtime' 'husk sandbox' \
        "husk $version"; do
        grep -qF -- "$text" /root/man.squeezed || fail "man husk has no '$text'"
    done
    echo "man husk: $(wc -l < /root/man.txt) lines"
else
    cat /root/man.err
    fail "man husk"
fi

# The bash completion, where bash-completion loads it from.
[ "$(bash -c '. /usr/share/bash-completion/completions/husk && complete -p husk')" = 'complete -F _husk husk' ] ||
    fail "the bash completion does not register _husk"

# The Python module, from Debian's python3, driving the installed husk (found on PATH).
python3 - <<'PY' || fail "husk_sandbox.run() (above)"
import husk_sandbox
assert husk_sandbox.__file__ == "/usr/lib/python3/dist-packages/husk_sandbox/__init__.py", husk_sandbox.__file__
result = husk_sandbox.run(["/bin/echo", "hi from python"])
assert result.stdout == b"hi from python\n", result
assert result.verdict.reason == "exited" and result.ok, result.verdict
print("husk_sandbox.run:", result.stdout, result.verdict.reason)
PY

# Purged, the packages leave none of their files (dh_python3's byte-code included).
if apt-get purge -y -qq python3-husk-sandbox husk > /debs/purge.log 2>&1; then
    for path in /usr/bin/husk /usr/bin/containerd-shim-husk-v2 /usr/share/man/man8/husk.8.gz /usr/share/bash-completion/completions/husk \
        /usr/lib/python3/dist-packages/husk_sandbox /usr/share/doc/husk /usr/share/doc/python3-husk-sandbox; do
        [ ! -e "$path" ] || fail "$path is left after apt-get purge"
    done
else
    tail -n 20 /debs/purge.log
    fail "apt-get purge"
fi
exit "$failed"
CHECK
run "install and use" "$install_root" "$work/install.log" bash -c 'cd /debs && bash check.sh' || status=1
cat "$work/install.log"
if [ -f "$install_root/debs/times" ] && read -r install verdict < "$install_root/debs/times"; then
    echo "deb-fresh-root: apt-get install $(seconds "$install") s, first husk sandbox $verdict ms"
    echo "deb-fresh-root: from the clone to the first verdict (clone, install-deps --deb, dpkg-buildpackage," \
        "apt-get install, husk sandbox): $(seconds $(( clone + deps + build + install + verdict ))) s"
fi
if [ "$status" = 0 ]; then echo "deb-fresh-root: the package built without warnings, installed and worked"
else echo "deb-fresh-root: FAILED"; fi
exit "$status"
