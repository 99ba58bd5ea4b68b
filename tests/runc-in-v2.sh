#!/bin/sh
# Runs runc (Debian's 1.1.5) for comparisons with husk (bench.sh, sanity runs of the integration tests).
# On this hybrid host runc would create cgroup v1 directories, which this project never does; so runc
# runs in a private mount namespace where cgroup2 is mounted over /sys/fs/cgroup and sees a pure v2
# layout. The host's mount table is untouched. Note: runc enables the available v2 controllers
# (here: hugetlb) in the v2 root's cgroup.subtree_control; bench.sh restores it afterwards.
exec unshare --mount --propagation private \
    sh -c 'mount -t cgroup2 none /sys/fs/cgroup && exec runc "$@"' runc "$@"
