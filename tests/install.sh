#!/bin/sh
# meson test 'install' (docs/testing.md): `meson install` of this build, into a temporary DESTDIR, puts husk,
# containerd's shim name for it (containerd-shim-husk-v2, a symlink to husk beside it), its man page, its
# bash completion and the husk_sandbox Python module where they belong, and `man husk` renders the page
# from there.
#   tests/install.sh BUILD_DIR PREFIX BINDIR MANDIR COMPLETIONS_DIR PYTHON_DIR   (as meson has them)
set -eu
[ $# -eq 6 ] || { echo "usage: $0 BUILD_DIR PREFIX BINDIR MANDIR COMPLETIONS_DIR PYTHON_DIR" >&2; exit 2; }
build=$1 prefix=$2
# absolute DIR: DIR under the prefix, unless it is absolute already (meson takes either).
absolute() { case $1 in /*) echo "$1" ;; *) echo "$prefix/$1" ;; esac; }
bindir=$(absolute "$3") mandir=$(absolute "$4") completions=$(absolute "$5") python_dir=$(absolute "$6")
python_dir=${python_dir%/}  # meson's python module gives it with a trailing /

tmp=$(mktemp -d /tmp/husk-install.XXXXXX)
trap 'rm -rf "$tmp"' EXIT INT TERM
fail() { echo "FAIL: $*"; exit 1; }

dest=$tmp/root
meson install -C "$build" --no-rebuild --quiet --destdir "$dest" >"$tmp/install.log" 2>&1 ||
    { cat "$tmp/install.log"; fail "meson install --destdir failed"; }
echo "installed:"
(cd "$dest" && find . \( -type f -o -type l \) | sort)

# The binary.
"$dest$bindir/husk" --version | grep -q '^husk version ' || fail "$dest$bindir/husk --version"

# containerd's runtime v2 shim for io.containerd.husk.v2: the name containerd looks up, beside husk, a
# relative symlink to it (so it holds wherever the tree is unpacked).
shim=$dest$bindir/containerd-shim-husk-v2
[ -L "$shim" ] || fail "no symlink $bindir/containerd-shim-husk-v2"
[ "$(readlink "$shim")" = husk ] || fail "$bindir/containerd-shim-husk-v2 points to '$(readlink "$shim")', not husk"
[ "$(readlink -f "$shim")" = "$(readlink -f "$dest$bindir/husk")" ] || fail "$bindir/containerd-shim-husk-v2 does not reach husk"

# The man page, as `man husk` finds it on a manpath holding only the installed tree: roff that man renders
# to the page's sections and options, at 80 columns without a table wider than the line.
page=$dest$mandir/man8/husk.8
[ -f "$page" ] || fail "no man page at $mandir/man8/husk.8"
found=$(man -M "$dest$mandir" -w husk) || fail "man -M $dest$mandir -w husk: no page"
[ "$found" = "$page" ] || fail "man finds $found, not $page"
head -n 3 "$page" | grep -q '^\.TH HUSK 8 ' || fail "$page has no .TH HUSK 8 line: not roff from go-md2man"
MANWIDTH=80 man -M "$dest$mandir" husk >"$tmp/rendered" 2>"$tmp/warnings" || fail "man husk failed"
tr -s ' ' <"$tmp/rendered" >"$tmp/squeezed"   # justified lines have runs of spaces
for text in NAME SYNOPSIS 'GLOBAL OPTIONS' COMMANDS 'EXIT STATUS' FILES 'SEE ALSO' \
    'husk - an OCI container runtime' '--root dir' '--die-with-parent' 'husk 0.1.0'; do
    grep -qF -- "$text" "$tmp/squeezed" || fail "the rendered page has no '$text'"
done
# Markup that go-md2man or the markdown got wrong shows up as text: font escapes, roff requests, markdown.
if grep -nE '\\f[BIRPC]|^ *\.(TP|PP|RS|RE|SH|TS|TE)\b|^ *(allbox|T\{|T\})|\*\*|^ *```' "$tmp/rendered"; then
    fail "roff or markdown markup in the rendered page (above)"
fi
if grep -i 'table wider than line width' "$tmp/warnings"; then
    fail "a table is wider than 80 columns (above): make it a definition list in docs/husk.8.md"
fi
echo "man husk: $(wc -l <"$tmp/rendered") lines at 80 columns"

# The bash completion, where bash-completion loads it from (on its own: `complete -F _husk husk`).
completion=$dest$completions/husk
[ -f "$completion" ] || fail "no bash completion at $completions/husk"
bash -c '. "$1" && complete -p husk' sh "$completion" | grep -qx 'complete -F _husk husk' ||
    fail "$completion does not register _husk for husk"

# The Python module, every file of bindings/python/husk_sandbox, as Debian's python3 imports it from there.
source=$(cd "$(dirname "$0")/../bindings/python/husk_sandbox" && pwd)
for file in "$source"/*.py; do
    [ -f "$dest$python_dir/husk_sandbox/${file##*/}" ] || fail "no $python_dir/husk_sandbox/${file##*/}"
done
[ ! -e "$dest$python_dir/husk_sandbox/__pycache__" ] || fail "a __pycache__ was installed"
imported=$(cd / && PYTHONPATH="$dest$python_dir" PYTHONDONTWRITEBYTECODE=1 /usr/bin/python3 -c \
    'import husk_sandbox; print(husk_sandbox.__file__, callable(husk_sandbox.run))') ||
    fail "python3 cannot import husk_sandbox from $python_dir"
[ "$imported" = "$dest$python_dir/husk_sandbox/__init__.py True" ] ||
    fail "husk_sandbox imported as '$imported', not from $dest$python_dir with its run()"
echo "install: all checks passed"
