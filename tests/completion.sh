#!/bin/bash
# meson test 'completion' (docs/testing.md): the bash completion (completions/husk.bash) stays true to the
# binary. It must offer every command of `husk --help` and every flag (long and short) of `husk --help` and
# of each `husk COMMAND --help`, offer no flag husk does not have, know which flags take a value, and
# complete container ids from `husk list -q` under the --root given on the line (a real container, created
# here, root needed).
#   HUSK_BINARY=build/src/cli/husk tests/completion.sh completions/husk.bash
set -u
husk=${HUSK_BINARY:?HUSK_BINARY must name the husk binary}
[ $# -eq 1 ] || { echo "usage: $0 COMPLETION_SCRIPT" >&2; exit 2; }
# shellcheck source=completions/husk.bash
. "$1"
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

# complete_line WORD...: what the completion offers on the line `husk WORD...` with the cursor at the end of
# the last WORD, one a line.
complete_line() {
    COMP_WORDS=("$husk" "$@")
    COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
    COMPREPLY=()
    _husk
    [ ${#COMPREPLY[@]} -eq 0 ] || printf '%s\n' "${COMPREPLY[@]}"
}

# offers LIST WORD: whether WORD is a line of LIST.
offers() { printf '%s\n' "$1" | grep -qxF -- "$2"; }

# help_options COMMAND: `LONG SHORT TAKES_VALUE` for each option in COMMAND's --help (the global options
# without COMMAND). husk prints an option as `  -b [ --bundle ] arg` or `  --pid-file arg`, two spaces in
# (the layout of Boost.Program_options, which parsed husk's command line once); wrapped descriptions are
# indented further.
help_options() {
    if [ -n "$1" ]; then
        "$husk" "$1" --help
    else
        "$husk" --help | sed -n '/^Global options:/,/^$/p'
    fi | awk '/^  -/ {
        if ($2 == "[") { short = $1; long = $3; rest = $5 } else { short = "-"; long = $1; rest = $2 }
        print long, short, (rest == "arg" ? "value" : "flag")
    }'
}

commands=$("$husk" --help | sed -n '/^Commands:/,/^$/p' | awk 'NR > 1 && NF { print $1 }')
[ "$(echo "$commands" | wc -l)" -ge 19 ] || fail "husk --help lists too few commands: $commands"
offered=$(complete_line '')
for command in $commands; do
    offers "$offered" "$command" || fail "command $command is not completed"
done
for command in $offered; do
    offers "$commands" "$command" || fail "the completion offers a command husk does not have: $command"
done

checked=0
for command in '' $commands; do
    where=${command:-global options}
    options=$(help_options "$command")
    [ -n "$options" ] || { fail "$where: no options found in --help"; continue; }
    offered_long=$(complete_line ${command:+"$command"} --)
    offered_all=$(complete_line ${command:+"$command"} -)
    while read -r long short kind; do
        offers "$offered_long" "$long" || fail "$where: $long is not completed"
        [ "$short" = - ] || offers "$offered_all" "$short" || fail "$where: $short is not completed"
        for option in $long $short; do
            [ "$option" = - ] && continue
            if _husk_takes_value "$command" "$option"; then is=value; else is=flag; fi
            [ "$is" = "$kind" ] || fail "$where: the completion takes $option for a $is, husk for a $kind"
        done
        checked=$((checked + 1))
    done <<<"$options"
    for option in $offered_all; do
        printf '%s\n' "$options" | awk -v o="$option" '$1 == o || $2 == o { found = 1 } END { exit !found }' ||
            fail "$where: the completion offers $option, which husk does not have"
    done
done
echo "checked $(echo "$commands" | wc -l) commands and $checked options"

# Values, and the command found after global options that take one.
[ "$(complete_line --log-format '')" = "$(printf 'text\njson')" ] || fail "--log-format values"
[ "$(complete_line ps --format j)" = json ] || fail "ps --format values"
offers "$(complete_line --root /nonexistent --log-format=json '')" create || fail "no command after global options"
offers "$(complete_line sandbox --net '')" host || fail "sandbox --net values"
offers "$(complete_line run --stop-signal SIGK)" SIGKILL || fail "--stop-signal values"

# Container ids come from `husk list -q` under the line's --root, in each of its spellings.
tmp=$(mktemp -d /tmp/husk-completion.XXXXXX)
id=completion-test-$$
cleanup() { "$husk" --root "$tmp/state" delete --force "$id" >/dev/null 2>&1; rm -rf "$tmp"; }
trap cleanup EXIT
# The sandbox's config: a tmpfs root and a user namespace (host ids from 2^30), which must reach the state.
chmod 0711 "$tmp"
mkdir "$tmp/bundle"
"$husk" sandbox --print-config -- sleep 600 >"$tmp/bundle/config.json" || fail "sandbox --print-config"
if "$husk" --root "$tmp/state" create --bundle "$tmp/bundle" "$id"; then
    offers "$(complete_line --root "$tmp/state" state '')" "$id" || fail "--root DIR: $id not completed"
    offers "$(complete_line --root = "$tmp/state" kill c)" "$id" || fail "--root = DIR: $id not completed"
    offers "$(complete_line "--root=$tmp/state" --debug delete '')" "$id" ||
        fail "--root=DIR: $id not completed"
    offers "$(complete_line --root "$tmp/state" exec -t '')" "$id" || fail "exec -t: $id not completed"
    # bash splits `-e A=B` at the `=`.
    offers "$(complete_line --root "$tmp/state" exec -e A = B --env = C = D '')" "$id" ||
        fail "exec -e A=B --env=C=D: $id not completed"
    offers "$(complete_line state '')" "$id" && fail "without --root, $id (under $tmp/state) is completed"
    offers "$(complete_line --root "$tmp/state" create '')" "$id" && fail "create completes an existing id"
    offers "$(complete_line --root "$tmp/state" kill "$id" '')" SIGTERM || fail "kill ID: no signals"
    [ -z "$(complete_line --root "$tmp/state" exec "$id" -)" ] || fail "exec completes flags after the id"
else
    fail "could not create the container $id"
fi

[ "$failures" -eq 0 ] || { echo "$failures failures"; exit 1; }
echo "completion: all checks passed"
