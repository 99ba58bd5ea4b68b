// linux.sysctl validation (config-linux.md "Sysctl"): see sysctl_rules.hpp.
#include <algorithm>
#include <array>
#include <string>

#include "spec/sysctl_rules.hpp"
#include "spec/validate_internal.hpp"

namespace husk::spec {
namespace {

// The System V IPC limits of an ipc namespace (ipc_namespaces(7)), as runc lists them.
constexpr std::array<std::string_view, 8> ipc_keys = {"kernel.msgmax", "kernel.msgmnb", "kernel.msgmni",
                                                      "kernel.sem",    "kernel.shmall", "kernel.shmmax",
                                                      "kernel.shmmni", "kernel.shm_rmid_forced"};

std::string field(std::string_view key) { return "linux.sysctl[" + detail::quoted(key) + "]"; }

std::string accepted_keys() {
    std::string list = "net.*, fs.mqueue.*";
    for (std::string_view key : ipc_keys) list += ", " + std::string(key);
    return list + ", kernel.domainname";
}

}  // namespace

SysctlNamespace sysctl_namespace(std::string_view key) {
    if (std::find(ipc_keys.begin(), ipc_keys.end(), key) != ipc_keys.end() || key.starts_with("fs.mqueue."))
        return SysctlNamespace::ipc;
    if (key.starts_with("net.")) return SysctlNamespace::network;
    if (key == "kernel.domainname" || key == "kernel.hostname") return SysctlNamespace::uts;
    return SysctlNamespace::none;
}

std::string_view namespace_type(SysctlNamespace ns) {
    switch (ns) {
        case SysctlNamespace::ipc: return "ipc";
        case SysctlNamespace::network: return "network";
        case SysctlNamespace::uts: return "uts";
        case SysctlNamespace::none: break;
    }
    return "";
}

Result<void> check_sysctl_name(std::string_view key) {
    if (key.find('/') != std::string_view::npos || key.find('\0') != std::string_view::npos)
        return fail_msg(field(key) + ": a sysctl name is dot-separated and holds no '/' or NUL");
    if (key.empty() || key.front() == '.' || key.back() == '.' || key.find("..") != std::string_view::npos)
        return fail_msg(field(key) + ": empty component in sysctl name");
    return {};
}

namespace detail {

Result<void> check_sysctls(const Linux& linux) {
    for (const auto& [key, value] : linux.sysctl) {
        TRY(check_sysctl_name(key));
        SysctlNamespace ns = sysctl_namespace(key);
        if (ns == SysctlNamespace::none)
            return fail_msg(field(key) + ": refused: the kernel does not keep it per namespace, so writing it "
                            "would change the host (accepted: " + accepted_keys() + ")");
        if (key == "kernel.hostname")
            return fail_msg(field(key) + ": refused: set the container's hostname with the \"hostname\" field");
        std::string_view type = namespace_type(ns);
        bool own = std::any_of(linux.namespaces.begin(), linux.namespaces.end(),
                               [&](const Namespace& entry) { return entry.type == type; });
        if (!own)
            return fail_msg(field(key) + ": refused: the container would share the host's " + std::string(type) +
                            " namespace, so writing it would change the host (add {\"type\": \"" +
                            std::string(type) + "\"} to linux.namespaces)");
    }
    return {};
}

}  // namespace detail
}  // namespace husk::spec
