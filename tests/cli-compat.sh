#!/bin/bash
# husk's command line, word for word: each line of CASES run against HUSK_BINARY, its exit status, stdout and
# stderr compared with EXPECTED, which was recorded from husk built with Boost.Program_options (its --help layout
# and usage messages are kept; docs/design.md, "The command line").
#
#   HUSK_BINARY=build/src/cli/husk tests/cli-compat.sh CASES EXPECTED           compare
#   HUSK_BINARY=... tests/cli-compat.sh --record CASES EXPECTED                 write EXPECTED anew
#
# A line of CASES is the words after `husk --root ROOT` (shell quoting), or after `husk` when it starts with
# "husk" (ROOT there is the root). ROOT is an empty directory and the working directory another: every command
# line fails or answers before a container exists (and must leave ROOT empty). In the outputs they read ROOT and
# CWD, a verdict's times TIME and SECONDS, and the libseccomp version VERSION. Root only: create, run, sandbox and
# exec first re-execute husk from a read-only mount, where husk without root protects itself another way.
#
# --record is for a deliberate change of the command line (a new flag, a reworded help): record, and read the
# diff of EXPECTED before committing it.
set -u

record=false
if [ "${1:-}" = --record ]; then
    record=true
    shift
fi
[ $# -eq 2 ] || { echo "usage: $0 [--record] CASES EXPECTED" >&2; exit 2; }
cases=$1
expected=$2
husk=$(realpath "${HUSK_BINARY:?set HUSK_BINARY to the husk to check}") || exit 2
if [ "$(id -u)" != 0 ]; then
    echo "cli-compat: needs root (create, run, sandbox and exec re-execute husk read-only as root)"
    exit 77
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
root=$work/root
mkdir "$root" "$work/cwd"

# Each case: "$ LINE", "status N", then its stdout and stderr lines, prefixed.
run_cases() {
    local line words
    while IFS= read -r line; do
        case "$line" in '' | '#'*) continue ;; esac
        words=${line//ROOT/$root}
        if [[ $line == husk* ]]; then
            eval "set -- ${words#husk}"
        else
            eval "set -- --root \"\$root\" $words"
        fi
        (cd "$work/cwd" && exec "$husk" "$@" >"$work/stdout" 2>"$work/stderr" </dev/null)
        printf '$ %s\nstatus %s\n' "$line" "$?"
        sed 's/^/stdout: /' "$work/stdout"
        sed 's/^/stderr: /' "$work/stderr"
    done <"$cases" | sed -e "s|$work/cwd|CWD|g" -e "s|$root|ROOT|g" \
        -e 's/^stdout: libseccomp: .*/stdout: libseccomp: VERSION/' \
        -e 's/"finished":"[^"]*"/"finished":"TIME"/g' -e 's/"t":[0-9.]*/"t":SECONDS/g'
}

left_behind() {
    if [ -n "$(ls -A "$root")" ]; then
        echo "cli-compat: the command lines left this in ROOT:" >&2
        ls -AR "$root" >&2
        return 0
    fi
    return 1
}

if $record; then
    run_cases >"$expected"
    left_behind && exit 1
    echo "cli-compat: recorded $(grep -c '^\$ ' "$expected") command lines in $expected"
    exit 0
fi
run_cases >"$work/actual"
left_behind && exit 1
if ! diff -u "$expected" "$work/actual"; then
    echo "cli-compat: $husk differs from $expected (above: - expected, + this husk)" >&2
    exit 1
fi
echo "cli-compat: $(grep -c '^\$ ' "$expected") command lines as recorded"
