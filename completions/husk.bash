# bash completion for husk(8): the global options, the commands and each command's flags, the values of
# the flags that take a fixed set, and container ids from `husk list -q` (under the --root given on the
# line). Installed by `meson install` as bash-completion's completions/husk. tests/completion.sh checks it
# against `husk --help` and `husk COMMAND --help`: a flag added to husk must be added here too.

_husk_global_options='--root= --log= --log-format= --message-fd= --debug --systemd-cgroup --cgroup-manager=
    --criu= --rootless= -v --version -h --help'

_husk_commands='create start run sandbox exec state kill delete pause resume ps update events list gc
    tenant spec features seccomp-profile'

# _husk_options COMMAND: the options COMMAND takes (the global ones without a command); those that take a
# value end in '='.
_husk_options() {
    local limits='--timeout= --kill-grace= --stop-signal= --output-limit= --cpu-limit= --tenant= --net-allow=
        --net-ops= --net-ops-kill --address-space='
    local create="-b= --bundle= -f= --config= --pid-file= --console-socket= --no-pivot --no-new-keyring
        --preserve-fds= --die-with-parent $limits"
    local verdict='--verdict= --verdict-fd= --output-format='
    local options
    case $1 in
        '') options=$_husk_global_options ;;
        create) options=$create ;;
        run) options="$create -d --detach --keep $verdict" ;;
        sandbox) options="--id= --rootfs= --bind= --bind-rw= --cwd= --env= --clear-env --net= --no-userns
            --seccomp= --cap= --print-config --die-with-parent $verdict $limits --cpus= --memory= --pids=
            --nofile= --fsize= --nproc= --tmp-size= --landlock-read= --landlock-write= --landlock-connect=" ;;
        exec) options='-p= --process= -t --tty --console-socket= --cwd= -e= --env= -u= --user= -g=
            --additional-gids= -c= --cap= --no-new-privs --preserve-fds= --pid-file= -d --detach
            --ignore-paused --cgroup= --process-label= --apparmor=' ;;
        kill) options='-a --all' ;;
        delete) options='-f --force --print-state' ;;
        ps) options='-f= --format=' ;;
        update) options='-r= --resources= --blkio-weight= --cpu-period= --cpu-quota= --cpu-burst=
            --cpu-share= --cpu-shares= --cpu-rt-period= --cpu-rt-runtime= --cpuset-cpus= --cpuset-mems=
            --kernel-memory= --kernel-memory-tcp= --memory= --cpu-idle= --memory-reservation=
            --memory-swap= --pids-limit= --l3-cache-schema= --mem-bw-schema=' ;;
        events) options='--stats --interval=' ;;
        list) options='-q --quiet --format=' ;;
        tenant) options='--cpu= --wall= --runs= --output= --concurrent= --period= --memory= --pids= --cpus=' ;;
        spec) options='-b= --bundle= --rootless' ;;
        start | state | pause | resume | gc | features | seccomp-profile) options= ;;
        *) return 1 ;;
    esac
    [ -n "$1" ] && options="$options -h --help"
    # shellcheck disable=SC2086 # one line of words, whatever the spacing above
    echo $options
}

# _husk_takes_value COMMAND OPTION: whether OPTION of COMMAND (or a global one, COMMAND empty) takes a value.
_husk_takes_value() {
    [[ " $(_husk_options "$1") " == *" $2= "* ]]
}

# _husk_reply WORD...: COMPREPLY is the WORDs that start with $cur.
_husk_reply() {
    mapfile -t COMPREPLY < <(compgen -W "$*" -- "$cur")
}

_husk_files() {
    compopt -o filenames 2>/dev/null
    mapfile -t COMPREPLY < <(compgen "$@" -- "$cur")
}

# _husk_ids: the containers under the line's --root (husk's default without one).
_husk_ids() {
    _husk_reply "$("${COMP_WORDS[0]}" ${root:+--root "$root"} list -q 2>/dev/null)"
}

# _husk_value COMMAND OPTION: complete the value of OPTION.
_husk_value() {
    case $1:$2 in
        :--root | create:-b | create:--bundle | run:-b | run:--bundle | spec:-b | spec:--bundle | \
        sandbox:--rootfs)
            _husk_files -d ;;
        :--log | *:--pid-file | *:--console-socket | *:--verdict | create:-f | create:--config | run:-f | \
        run:--config | exec:-p | exec:--process | update:-r | update:--resources | sandbox:--bind | \
        sandbox:--bind-rw | sandbox:--landlock-read | sandbox:--landlock-write)
            _husk_files -f ;;
        :--log-format | *:--output-format) _husk_reply text json ;;
        :--cgroup-manager) _husk_reply cgroupfs systemd disabled ;;
        :--rootless) _husk_reply false auto ;;
        ps:-f | ps:--format | list:--format) _husk_reply table json ;;
        sandbox:--net) _husk_reply none host ;;
        sandbox:--seccomp)
            _husk_files -f
            mapfile -t -O "${#COMPREPLY[@]}" COMPREPLY < <(compgen -W 'default unconfined' -- "$cur") ;;
        *:--stop-signal) _husk_reply "$(compgen -A signal)" ;;
        *) COMPREPLY=() ;;
    esac
}

_husk() {
    local cur=${COMP_WORDS[COMP_CWORD]} command='' root='' pending='' joined=0 word i
    local -a arguments=()
    local options_end=0   # past `--`, exec's ID or sandbox's program: no more flags
    COMPREPLY=()
    # Walk the words before the cursor: global options, the command, then its options and arguments.
    # `=` is in COMP_WORDBREAKS: `--opt=value` arrives as three words (or as one where it is not), and a
    # value such as exec's `-e A=B` as `A`, `=`, `B`, where `= B` still belongs to the word before.
    for ((i = 1; i < COMP_CWORD; i++)); do
        word=${COMP_WORDS[i]}
        if [ "$joined" = 1 ]; then
            joined=0
        elif [ "$word" = = ] && [ -z "$pending" ]; then
            joined=1
        elif [ -n "$pending" ]; then
            [ "$word" = = ] && continue
            [ -z "$command" ] && [ "$pending" = --root ] && root=$word
            pending=
        elif [ "$options_end" = 0 ] && [ "$word" = -- ]; then
            options_end=1
        elif [ "$options_end" = 0 ] && [[ $word == -?* ]]; then
            if [[ $word == *=* ]]; then
                [ -z "$command" ] && [[ $word == --root=* ]] && root=${word#--root=}
            elif _husk_takes_value "$command" "$word"; then
                pending=$word
            fi
        elif [ -z "$command" ]; then
            command=$word
        else
            arguments+=("$word")
            case $command in exec | sandbox) options_end=1 ;; esac
        fi
    done
    [ "$cur" = = ] && cur=
    if [ -n "$pending" ]; then
        _husk_value "$command" "$pending"
        return
    fi
    if [ "$options_end" = 0 ] && [[ $cur == -* ]]; then
        _husk_options "$command" >/dev/null || return
        _husk_reply "$(_husk_options "$command" | tr -d =)"
        return
    fi
    case $command in
        '') _husk_reply "$_husk_commands" ;;
        start | state | pause | resume | ps | update | events | delete | exec)
            [ ${#arguments[@]} -eq 0 ] && _husk_ids ;;
        kill)
            case ${#arguments[@]} in
                0) _husk_ids ;;
                1) _husk_reply "$(compgen -A signal)" ;;
            esac ;;
        sandbox)
            if [ ${#arguments[@]} -eq 0 ]; then _husk_files -c; else _husk_files -f; fi ;;
        tenant)
            case ${#arguments[@]} in
                0) _husk_reply set show reset compact ;;
                1) local tenants=("${root:-/run/husk}"/tenants/*.json)
                   [ -e "${tenants[0]}" ] && _husk_reply "$(basename -s .json "${tenants[@]}")" ;;
            esac ;;
    esac
}

complete -F _husk husk
