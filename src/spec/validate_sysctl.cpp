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

namespace {

std::string swap_separators(std::string_view key) {
    std::string swapped(key);
    for (char& c : swapped) c = c == '.' ? '/' : c == '/' ? '.' : c;
    return swapped;
}

bool slash_first(std::string_view key) {
    auto first = key.find_first_of("./");
    return first != std::string_view::npos && key[first] == '/';
}

}  // namespace

std::string sysctl_path(std::string_view key) { return slash_first(key) ? std::string(key) : swap_separators(key); }

std::string sysctl_dotted(std::string_view key) { return slash_first(key) ? swap_separators(key) : std::string(key); }

SysctlNamespace sysctl_namespace(std::string_view name) {
    const std::string dotted = sysctl_dotted(name);
    const std::string_view key = dotted;
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
    if (key.find('\0') != std::string_view::npos) return fail_msg(field(key) + ": a sysctl name holds no NUL");
    const std::string path = sysctl_path(key);
    std::string_view rest = path;
    while (true) {
        std::string_view component = rest.substr(0, rest.find('/'));
        if (component.empty()) return fail_msg(field(key) + ": empty component in sysctl name");
        if (component == "." || component == "..")
            return fail_msg(field(key) + ": a sysctl name has no \".\" or \"..\" component");
        if (component.size() == rest.size()) return {};
        rest.remove_prefix(component.size() + 1);
    }
}

namespace detail {

Result<void> check_sysctls(const Linux& linux) {
    for (const auto& [key, value] : linux.sysctl) {
        TRY(check_sysctl_name(key));
        SysctlNamespace ns = sysctl_namespace(key);
        if (ns == SysctlNamespace::none)
            return fail_msg(field(key) + ": refused: the kernel does not keep it per namespace, so writing it "
                            "would change the host (accepted: " + accepted_keys() + ")");
        if (sysctl_dotted(key) == "kernel.hostname")
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
