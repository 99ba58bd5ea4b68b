# shellcheck shell=bash
# Builds the guest's initramfs; sourced by run-in-vm.sh (bash), which sets husk, probe, integration,
# subreaper_caller, staged, files, modules, kernel_version, top and here. Guest layout (docs/vm-harness.md):
#   /init, /vm/init2           the two inits (tests/vm/guest/)
#   /vm/argv, /vm/modules      the command (shell-quoted words), the insmod list
#   /usr/local/bin/husk, /usr/local/bin/probe, and their shared libraries at their host paths
#   /usr/local/bin/containerd-shim-husk-v2   a symlink to husk, as `meson install` makes it
#   /usr/local/bin/husk-integration, /usr/local/bin/subreaper-caller   when they are built
#   /usr/local/bin/NAME        each --stage BINARY
#   /bundles/build-rootfs.sh   the rootfs script (the integration tests build their bundles with it)
#   /bundles/busybox/          the example bundle: config.json, rootfs/ (with /probe) from build-rootfs.sh
#   /files/                    the --files DIR
# The guest's own root is a busybox rootfs as well, made by the same bundles/build-rootfs.sh.

# shellcheck disable=SC2154 # (the variables above come from run-in-vm.sh)
stage_die() { echo "run-in-vm: initramfs: $*" >&2; exit 125; }

# stage_dir PATH: PATH (absolute) becomes a real directory in the stage. Nothing is ever written
# through a symlink in the stage: one could point back at the host's own files.
stage_dir() {
    local path=$stage$1
    [ ! -L "$path" ] || stage_die "refusing to write through the symlink $path"
    [ -d "$path" ] || mkdir -p -- "$path"
}

# stage_file SRC DEST MODE: copies the host file SRC to DEST (absolute, in the stage).
stage_file() {
    stage_dir "$(dirname "$2")"
    [ ! -L "$stage$2" ] || stage_die "refusing to write through the symlink $stage$2"
    cp -- "$1" "$stage$2"
    chmod "$3" "$stage$2"
}

# stage_host_path PATH: reproduces the host's PATH at the same place in the stage, keeping each
# symlink on the way (of the file, or of a directory such as /lib -> usr/lib) as a symlink and
# copying what it points to as well.
stage_host_path() {
    local path=$1 prefix rest component current target hops=0
    while :; do
        prefix='' rest=${path#/}
        while [ -n "$rest" ]; do
            component=${rest%%/*}
            if [[ $rest == */* ]]; then rest=${rest#*/}; else rest=; fi
            case $component in
                ''|.) continue ;;
                ..) prefix=${prefix%/*}; continue ;;
            esac
            current=$prefix/$component
            if [ -L "$current" ]; then
                target=$(readlink -- "$current")
                if [ -L "$stage$current" ]; then
                    [ "$(readlink -- "$stage$current")" = "$target" ] ||
                        stage_die "$stage$current points elsewhere than $current"
                elif [ -e "$stage$current" ]; then
                    stage_die "$stage$current exists but $current is a symlink"
                else
                    stage_dir "$prefix"
                    ln -s -- "$target" "$stage$current"
                fi
                # Go on from what the link points to, with the rest of the path.
                if [[ $target == /* ]]; then path=$target; else path=$prefix/$target; fi
                path=$path${rest:+/$rest}
                hops=$((hops + 1))
                [ $hops -le 40 ] || stage_die "too many symlinks resolving $1"
                continue 2
            fi
            if [ -n "$rest" ]; then
                [ -d "$current" ] || stage_die "$current is not a directory (resolving $1)"
                stage_dir "$current"
            elif [ ! -e "$stage$current" ]; then
                [ -f "$current" ] || stage_die "$current is not a regular file"
                stage_dir "$prefix"
                cp -p -- "$current" "$stage$current"
            fi
            prefix=$current
        done
        return 0
    done
}

# stage_binary SRC DEST: the executable and its `ldd` closure (a static binary has none). Debug info
# is left out (husk's is 20 MB of the initramfs; unpacking and copying it costs ~0.4 s of boot).
stage_binary() {
    local lib
    stage_file "$1" "$2" 0755
    if command -v strip >/dev/null 2>&1; then strip --strip-debug -- "$stage$2"; fi
    if ldd "$1" >/dev/null 2>&1; then
        for lib in $(ldd "$1" | awk '{ for (i = 1; i <= NF; i++) if ($i ~ /^\//) print $i }'); do
            stage_host_path "$lib"
        done
    fi
}

# Writes each argument as one single-quoted shell word; init2 reads them back with eval.
quote_words() {
    local word quote="'" escaped="'\\''"
    for word in "$@"; do printf "'%s' " "${word//$quote/$escaped}"; done
    echo
}

# build_initramfs STAGE OUTPUT COMMAND...
build_initramfs() {
    stage=$1
    local output=$2 module line
    shift 2
    mkdir -m 0755 -- "$stage"
    "$top/bundles/build-rootfs.sh" "$stage" >/dev/null
    stage_dir /newroot
    stage_dir /vm
    # The kernel opens /dev/console for the first init before anything is mounted.
    mknod -m 0600 "$stage/dev/console" c 5 1
    stage_file "$here/guest/init" /init 0755
    stage_file "$here/guest/init2" /vm/init2 0755
    quote_words "$@" > "$stage/vm/argv"

    stage_binary "$husk" /usr/local/bin/husk
    # containerd runs the shim of the runtime io.containerd.husk.v2 by this name, found in its PATH: husk
    # itself, which picks the shim by argv[0] (docs/clients.md, "husk's own shim").
    ln -s husk "$stage/usr/local/bin/containerd-shim-husk-v2"
    stage_binary "$probe" /usr/local/bin/probe
    # The integration tests need the subreaper caller as well (the harness checks it exists). They
    # are optional: a tree without them still boots, and init2 points the tests at what is there.
    if [ -x "$integration" ]; then
        [ -x "$subreaper_caller" ] || stage_die "$integration needs the subreaper caller: $subreaper_caller not found"
        stage_binary "$integration" /usr/local/bin/husk-integration
        stage_binary "$subreaper_caller" /usr/local/bin/subreaper-caller
    fi

    local binary
    for binary in ${staged[@]+"${staged[@]}"}; do stage_binary "$binary" "/usr/local/bin/${binary##*/}"; done

    stage_dir /bundles/busybox
    stage_file "$top/bundles/build-rootfs.sh" /bundles/build-rootfs.sh 0755
    "$top/bundles/build-rootfs.sh" --probe "$probe" "$stage/bundles/busybox/rootfs" >/dev/null
    stage_file "$top/bundles/busybox/config.json" /bundles/busybox/config.json 0644

    if [ -n "$files" ]; then
        stage_dir /files
        cp -a -- "$files/." "$stage/files/"
    fi

    # modprobe prints the dependencies first, in load order; "builtin NAME" needs nothing.
    for module in ${modules[@]+"${modules[@]}"}; do
        modprobe --show-depends -S "$kernel_version" "$module" > "$stage/vm/modules.new" ||
            stage_die "no module $module for kernel $kernel_version"
        while read -r line; do
            case $line in
                insmod\ *)
                    line=${line#insmod }
                    line=${line%% *}
                    grep -qxF -- "$line" "$stage/vm/modules" 2>/dev/null && continue
                    stage_host_path "$line"
                    echo "$line" >> "$stage/vm/modules"
                    ;;
            esac
        done < "$stage/vm/modules.new"
        rm -f -- "$stage/vm/modules.new"
    done

    # newc, uncompressed: the kernel unpacks it without spending TCG time on decompression.
    (cd "$stage" && find . -print0 | LC_ALL=C sort -z | cpio --null --create --format=newc --quiet --owner=0:0) \
        > "$output"
}
