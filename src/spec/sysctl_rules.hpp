// Which linux.sysctl keys a container may set. Most of /proc/sys is host-wide: a write there changes the
// whole machine (kernel.core_pattern names a program the kernel runs as root at the next crash). Only
// sysctls the kernel keeps per namespace are accepted, and only when the container has a namespace of that
// kind of its own: runc's rule (libcontainer/configs/validate, sysctl), see docs/security.md.
#pragma once

#include <string>
#include <string_view>

#include "husk/error.hpp"
#include "husk/spec.hpp"

namespace husk::spec {

// sysctl.d(5): '.' or '/' separates a name's components. When the first separator is '/', the name is the
// path below /proc/sys as it stands; when it is '.', dots and slashes trade places, so a component may hold a
// '.' written as '/' (net.ipv4.conf.eth0/100.forwarding is net/ipv4/conf/eth0.100/forwarding). runc and crun
// read names this way. sysctl_path gives that path, sysctl_dotted the same name with '.' first.
std::string sysctl_path(std::string_view key);
std::string sysctl_dotted(std::string_view key);

// The namespace that isolates a sysctl, by its linux.namespaces type name.
enum class SysctlNamespace { ipc, network, uts, none };

// ipc: kernel.msgmax, msgmnb, msgmni, sem, shmall, shmmax, shmmni, shm_rmid_forced and fs.mqueue.*
// (ipc_namespaces(7), mq_overview(7)); network: net.*; uts: kernel.domainname and kernel.hostname
// (uts_namespaces(7)); none: everything else. Either spelling of a name (see sysctl_path).
SysctlNamespace sysctl_namespace(std::string_view key);

// "ipc", "network", "uts": the linux.namespaces type; "" for none.
std::string_view namespace_type(SysctlNamespace ns);

// A sysctl name whose path below /proc/sys (sysctl_path) has no NUL, no empty component and no "." or ".."
// component, so it names a sysctl and nothing beside it. Errors read `linux.sysctl["a..b"]: ...`.
Result<void> check_sysctl_name(std::string_view key);

namespace detail {
// Every linux.sysctl entry: a plain name (check_sysctl_name), namespaced, with that namespace type listed
// in linux.namespaces. kernel.hostname is refused as runc does: the `hostname` field sets it. Whether a
// namespace joined by path is the runtime's own is checked when the namespaces are opened
// (sysctl::prepare_sysctl).
Result<void> check_sysctls(const Linux& linux);
}  // namespace detail

}  // namespace husk::spec
