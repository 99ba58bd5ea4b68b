# shellcheck shell=sh
# The client suites' matrix (sourced; POSIX sh, so the VM's busybox ash runs it). Each check is a row,
# run once per runtime; runc is the reference column, husk (runc's shim running husk) and husk-shim
# (containerd's runtime io.containerd.husk.v2: husk's own shim) the ones under test.
#   row NAME RUNTIME COMMAND...   runs COMMAND (stdout and stderr captured); its exit status is the verdict.
#                                 RUNTIME is runc, husk or husk-shim. Prints "ok"/"not ok" at once, with
#                                 COMMAND's output when it failed.
#   report                        prints the table "row | runc | husk [| husk-shim]", a column for each
#                                 runtime that ran a row; returns 1 iff a husk or husk-shim row failed.
#   watch_memory                  samples the guest's MemAvailable every half second; report then prints
#                                 the lowest, to size run-in-vm.sh --memory.
#   processes_matching PATTERN... the processes whose command lines match (what a suite left running)
# A failing runc row does not fail the suite, but it is never dropped either: the table shows it as
# "FAIL (noted)" and its output was printed when it ran, since a husk verdict means little where the
# reference fails too.

clients_rows=$(mktemp /tmp/clients-rows.XXXXXX)

# Seconds since boot, to the hundredth (busybox date has no %N).
clients_now() { read -r up _ < /proc/uptime; echo "$up"; }

row() {
    [ $# -ge 3 ] || { echo "row: usage: row NAME RUNTIME COMMAND..." >&2; return 2; }
    row_name=$1 row_runtime=$2
    shift 2
    case $row_runtime in runc|husk|husk-shim) ;; *) echo "row: unknown runtime $row_runtime" >&2; return 2 ;; esac
    row_output=$(mktemp /tmp/clients-row.XXXXXX)
    row_start=$(clients_now)
    if "$@" > "$row_output" 2>&1; then row_status=pass; else row_status=FAIL; fi
    row_seconds=$(awk -v a="$row_start" -v b="$(clients_now)" 'BEGIN { printf "%.1f", b - a }')
    if [ $row_status = pass ]; then
        echo "ok - $row_name [$row_runtime] (${row_seconds} s)"
    else
        echo "not ok - $row_name [$row_runtime] (${row_seconds} s)"
        sed 's/^/    /' "$row_output"
    fi
    rm -f "$row_output"
    printf '%s\t%s\t%s\n' "$row_runtime" "$row_status" "$row_name" >> "$clients_rows"
}

watch_memory() {
    (
        lowest=
        while :; do
            while read -r key kb _; do [ "$key" = MemAvailable: ] && break; done < /proc/meminfo
            if [ -z "$lowest" ] || [ "$kb" -lt "$lowest" ]; then lowest=$kb; echo "$kb" > "$clients_rows.memory"; fi
            sleep 0.5
        done
    ) &
}

report() {
    if [ -s "$clients_rows.memory" ]; then
        echo "lowest MemAvailable: $(($(cat "$clients_rows.memory") / 1024)) MB of $(($(awk '$1 == "MemTotal:" { print $2 }' /proc/meminfo) / 1024)) MB"
    fi
    echo
    # Rows in the order they first ran; runc and husk always, husk-shim where it ran a row; "-" where a
    # runtime never ran one.
    awk -F '\t' '
        !($3 in seen) { seen[$3] = 1; order[++n] = $3 }
        { verdict[$3, $1] = ($1 == "runc" && $2 == "FAIL") ? "FAIL (noted)" : $2 }
        $1 == "husk-shim" { shim = 1 }
        $1 != "runc" && $2 == "FAIL" { husk_failed = 1 }
        END {
            columns = shim ? "runc husk husk-shim" : "runc husk"
            m = split(columns, runtime, " ")
            header = "| row |"; rule = "|---|"
            for (j = 1; j <= m; j++) { header = header " " runtime[j] " |"; rule = rule "---|" }
            print header
            print rule
            for (i = 1; i <= n; i++) {
                r = order[i]
                line = "| " r " |"
                for (j = 1; j <= m; j++) line = line " " (((r, runtime[j]) in verdict) ? verdict[r, runtime[j]] : "-") " |"
                print line
            }
            exit husk_failed
        }' "$clients_rows"
}

# processes_matching PATTERN...: "process PID: COMMAND LINE" for each process whose command line (its
# arguments joined by spaces) matches one of the glob PATTERNs; for the rows that check nothing is left.
processes_matching() {
    for proc_dir in /proc/[0-9]*; do
        cmdline=$(tr '\0' ' ' 2>/dev/null < "$proc_dir/cmdline") || continue
        for pattern in "$@"; do
            # shellcheck disable=SC2254  # the pattern is a glob
            case $cmdline in $pattern) echo "process ${proc_dir#/proc/}: $cmdline"; break ;; esac
        done
    done
}

# Assertion helpers for the rows' commands: each prints what it saw when it fails.
expect_eq() { # WHAT EXPECTED ACTUAL
    [ "$2" = "$3" ] && return 0
    echo "$1: expected '$2', got '$3'"
    return 1
}
expect_contains() { # WHAT NEEDLE HAYSTACK
    case $3 in *"$2"*) return 0 ;; esac
    echo "$1: expected to contain '$2', got '$3'"
    return 1
}
