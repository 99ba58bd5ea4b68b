# install_missing PACKAGE...: apt-get installs those of the Debian packages that are not installed yet, and
# touches nothing when all are (so the install-deps scripts are idempotent and need no network then).
# Sourced by tests/install-deps.sh, tests/vm/install-deps.sh and tests/clients/install-deps.sh.
install_missing() {
    missing=
    for p in "$@"; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
    done
    if [ -n "$missing" ]; then
        export DEBIAN_FRONTEND=noninteractive
        apt-get update -qq
        # shellcheck disable=SC2086
        apt-get install -y -qq --no-install-recommends $missing
    fi
}
