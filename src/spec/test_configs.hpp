// config.json documents as real clients write them (docs/clients.md, "The configs the clients send"), for
// the spec unit tests. Test-only header.
#pragma once

namespace husk::spec::test {

// containerd 1.6 / ctr default spec: relative rootfs, 14 caps, device allow-list with a 136:* wildcard.
inline constexpr const char* containerd_config = R"({
  "ociVersion": "1.0.2-dev",
  "process": {
    "user": {"uid": 0, "gid": 0, "additionalGids": [0]},
    "args": ["sh", "-c", "echo hi"],
    "env": ["PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"],
    "cwd": "/",
    "capabilities": {
      "bounding": ["CAP_CHOWN", "CAP_DAC_OVERRIDE", "CAP_FSETID", "CAP_FOWNER", "CAP_MKNOD", "CAP_NET_RAW",
                   "CAP_SETGID", "CAP_SETUID", "CAP_SETFCAP", "CAP_SETPCAP", "CAP_NET_BIND_SERVICE",
                   "CAP_SYS_CHROOT", "CAP_KILL", "CAP_AUDIT_WRITE"],
      "effective": ["CAP_CHOWN", "CAP_DAC_OVERRIDE", "CAP_FSETID", "CAP_FOWNER", "CAP_MKNOD", "CAP_NET_RAW",
                    "CAP_SETGID", "CAP_SETUID", "CAP_SETFCAP", "CAP_SETPCAP", "CAP_NET_BIND_SERVICE",
                    "CAP_SYS_CHROOT", "CAP_KILL", "CAP_AUDIT_WRITE"],
      "permitted": ["CAP_CHOWN", "CAP_DAC_OVERRIDE", "CAP_FSETID", "CAP_FOWNER", "CAP_MKNOD", "CAP_NET_RAW",
                    "CAP_SETGID", "CAP_SETUID", "CAP_SETFCAP", "CAP_SETPCAP", "CAP_NET_BIND_SERVICE",
                    "CAP_SYS_CHROOT", "CAP_KILL", "CAP_AUDIT_WRITE"]
    },
    "rlimits": [{"type": "RLIMIT_NOFILE", "hard": 1024, "soft": 1024}],
    "noNewPrivileges": true
  },
  "root": {"path": "rootfs"},
  "mounts": [
    {"destination": "/proc", "type": "proc", "source": "proc", "options": ["nosuid", "noexec", "nodev"]},
    {"destination": "/dev", "type": "tmpfs", "source": "tmpfs",
     "options": ["nosuid", "strictatime", "mode=755", "size=65536k"]},
    {"destination": "/dev/pts", "type": "devpts", "source": "devpts",
     "options": ["nosuid", "noexec", "newinstance", "ptmxmode=0666", "mode=0620", "gid=5"]},
    {"destination": "/dev/shm", "type": "tmpfs", "source": "shm",
     "options": ["nosuid", "noexec", "nodev", "mode=1777", "size=65536k"]},
    {"destination": "/dev/mqueue", "type": "mqueue", "source": "mqueue", "options": ["nosuid", "noexec", "nodev"]},
    {"destination": "/sys", "type": "sysfs", "source": "sysfs", "options": ["nosuid", "noexec", "nodev", "ro"]},
    {"destination": "/run", "type": "tmpfs", "source": "tmpfs",
     "options": ["nosuid", "strictatime", "mode=755", "size=65536k"]}
  ],
  "linux": {
    "resources": {
      "devices": [
        {"allow": false, "access": "rwm"},
        {"allow": true, "type": "c", "major": 1, "minor": 3, "access": "rwm"},
        {"allow": true, "type": "c", "major": 1, "minor": 8, "access": "rwm"},
        {"allow": true, "type": "c", "major": 1, "minor": 7, "access": "rwm"},
        {"allow": true, "type": "c", "major": 5, "minor": 0, "access": "rwm"},
        {"allow": true, "type": "c", "major": 1, "minor": 5, "access": "rwm"},
        {"allow": true, "type": "c", "major": 1, "minor": 9, "access": "rwm"},
        {"allow": true, "type": "c", "major": 5, "minor": 1, "access": "rwm"},
        {"allow": true, "type": "c", "major": 136, "access": "rwm"},
        {"allow": true, "type": "c", "major": 5, "minor": 2, "access": "rwm"}
      ],
      "memory": {"limit": 67108864},
      "cpu": {"shares": 1024}
    },
    "cgroupsPath": "/default/t1",
    "namespaces": [{"type": "pid"}, {"type": "ipc"}, {"type": "uts"}, {"type": "mount"}, {"type": "network"}],
    "maskedPaths": ["/proc/acpi", "/proc/asound", "/proc/kcore", "/proc/keys", "/proc/latency_stats",
                    "/proc/timer_list", "/proc/timer_stats", "/proc/sched_debug", "/sys/firmware", "/proc/scsi"],
    "readonlyPaths": ["/proc/bus", "/proc/fs", "/proc/irq", "/proc/sys", "/proc/sysrq-trigger"]
  }
})";

// podman 4.3 with --network none --security-opt seccomp=unconfined: absolute rootfs, hostname,
// annotations, umask, bind mounts, a cgroup mount, pids limit, memory+swap, joined network namespace.
inline constexpr const char* podman_config = R"({
  "ociVersion": "1.0.2-dev",
  "process": {
    "user": {"uid": 0, "gid": 0, "umask": 18},
    "args": ["sh"],
    "env": ["PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", "TERM=xterm",
            "container=podman", "HOME=/root", "HOSTNAME=2b8a1f2c3d4e"],
    "cwd": "/",
    "capabilities": {
      "bounding": ["CAP_AUDIT_WRITE", "CAP_CHOWN", "CAP_DAC_OVERRIDE", "CAP_FOWNER", "CAP_FSETID", "CAP_KILL",
                   "CAP_MKNOD", "CAP_NET_BIND_SERVICE", "CAP_NET_RAW", "CAP_SETFCAP", "CAP_SETGID",
                   "CAP_SETPCAP", "CAP_SETUID", "CAP_SYS_CHROOT"],
      "effective": ["CAP_AUDIT_WRITE", "CAP_CHOWN", "CAP_DAC_OVERRIDE", "CAP_FOWNER", "CAP_FSETID", "CAP_KILL",
                    "CAP_MKNOD", "CAP_NET_BIND_SERVICE", "CAP_NET_RAW", "CAP_SETFCAP", "CAP_SETGID",
                    "CAP_SETPCAP", "CAP_SETUID", "CAP_SYS_CHROOT"],
      "permitted": ["CAP_AUDIT_WRITE", "CAP_CHOWN", "CAP_DAC_OVERRIDE", "CAP_FOWNER", "CAP_FSETID", "CAP_KILL",
                    "CAP_MKNOD", "CAP_NET_BIND_SERVICE", "CAP_NET_RAW", "CAP_SETFCAP", "CAP_SETGID",
                    "CAP_SETPCAP", "CAP_SETUID", "CAP_SYS_CHROOT"]
    },
    "rlimits": [{"type": "RLIMIT_NOFILE", "hard": 20000, "soft": 20000},
                {"type": "RLIMIT_NPROC", "hard": 32768, "soft": 32768}],
    "oomScoreAdj": 0
  },
  "root": {"path": "/var/lib/containers/storage/overlay/0123abcd/merged"},
  "hostname": "2b8a1f2c3d4e",
  "mounts": [
    {"destination": "/proc", "type": "proc", "source": "proc", "options": ["nosuid", "noexec", "nodev"]},
    {"destination": "/dev", "type": "tmpfs", "source": "tmpfs",
     "options": ["nosuid", "noexec", "strictatime", "mode=755", "size=65536k"]},
    {"destination": "/sys", "type": "sysfs", "source": "sysfs", "options": ["nosuid", "noexec", "nodev", "ro"]},
    {"destination": "/dev/pts", "type": "devpts", "source": "devpts",
     "options": ["nosuid", "noexec", "newinstance", "ptmxmode=0666", "mode=0620", "gid=5"]},
    {"destination": "/dev/mqueue", "type": "mqueue", "source": "mqueue", "options": ["nosuid", "noexec", "nodev"]},
    {"destination": "/dev/shm", "type": "bind",
     "source": "/var/lib/containers/storage/overlay-containers/2b8a/userdata/shm",
     "options": ["bind", "rprivate", "nosuid", "noexec", "nodev"]},
    {"destination": "/run/.containerenv", "type": "bind",
     "source": "/run/containers/storage/overlay-containers/2b8a/userdata/.containerenv",
     "options": ["bind", "rprivate"]},
    {"destination": "/etc/hostname", "type": "bind",
     "source": "/run/containers/storage/overlay-containers/2b8a/userdata/hostname", "options": ["bind", "rprivate"]},
    {"destination": "/etc/hosts", "type": "bind",
     "source": "/run/containers/storage/overlay-containers/2b8a/userdata/hosts", "options": ["bind", "rprivate"]},
    {"destination": "/sys/fs/cgroup", "type": "cgroup", "source": "cgroup",
     "options": ["rprivate", "nosuid", "noexec", "nodev", "relatime", "ro"]}
  ],
  "annotations": {
    "io.container.manager": "libpod",
    "io.kubernetes.cri-o.Created": "2026-11-22T12:08:00.123456789Z",
    "io.kubernetes.cri-o.TTY": "false",
    "io.podman.annotations.autoremove": "TRUE",
    "io.podman.annotations.init": "FALSE",
    "io.podman.annotations.privileged": "FALSE",
    "io.podman.annotations.publish-all": "FALSE",
    "org.opencontainers.image.stopSignal": "15"
  },
  "linux": {
    "sysctl": {"net.ipv4.ping_group_range": "0 0"},
    "resources": {
      "devices": [{"allow": false, "access": "rwm"}],
      "memory": {"limit": 67108864, "swap": 134217728},
      "cpu": {"shares": 512},
      "pids": {"limit": 2048}
    },
    "cgroupsPath": "/libpod_parent/libpod-2b8a1f2c3d4e",
    "namespaces": [{"type": "pid"}, {"type": "network", "path": "/proc/4242/ns/net"}, {"type": "ipc"},
                   {"type": "uts"}, {"type": "mount"}],
    "maskedPaths": ["/proc/acpi", "/proc/kcore", "/proc/keys", "/proc/latency_stats", "/proc/timer_list",
                    "/proc/timer_stats", "/proc/sched_debug", "/proc/scsi", "/sys/firmware", "/sys/fs/selinux",
                    "/sys/dev/block"],
    "readonlyPaths": ["/proc/asound", "/proc/bus", "/proc/fs", "/proc/irq", "/proc/sys", "/proc/sysrq-trigger"]
  }
})";

}  // namespace husk::spec::test
