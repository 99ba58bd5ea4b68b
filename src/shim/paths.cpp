#include "shim/paths.hpp"

#include <cstdint>
#include <cstdio>

namespace husk::shim {
namespace {

// FNV-1a, 64 bits, twice with different bases: a name, not a secret (a collision only makes two groups
// share a socket name, and the second `start` then finds the first's shim answering to another group).
std::uint64_t fnv1a(std::string_view text, std::uint64_t hash) {
    for (unsigned char c : text) {
        hash ^= c;
        hash *= 0x100000001b3ull;
    }
    return hash;
}

}  // namespace

Result<std::string> state_root(std::string_view ns) {
    if (ns.empty() || ns.size() > 76) return fail_msg("namespace \"" + std::string(ns) + "\": must be 1 to 76 characters");
    for (char c : ns) {
        bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-';
        if (!ok) return fail_msg("namespace \"" + std::string(ns) + "\": only letters, digits, '.', '_' and '-'");
    }
    if (ns == "." || ns == "..") return fail_msg("namespace \"" + std::string(ns) + "\": not a name");
    return "/run/containerd/husk/" + std::string(ns);
}

std::string socket_address(std::string_view containerd_address, std::string_view ns, std::string_view group) {
    std::string key = std::string(containerd_address) + '\0' + std::string(ns) + '\0' + std::string(group);
    char name[40];
    std::snprintf(name, sizeof name, "%016llx%016llx", static_cast<unsigned long long>(fnv1a(key, 0xcbf29ce484222325ull)),
                  static_cast<unsigned long long>(fnv1a(key, 0x84222325cbf29ce4ull)));
    return "unix:///run/containerd/s/husk-" + std::string(name);
}

std::string socket_path(std::string_view address) {
    if (address.starts_with("unix://")) address.remove_prefix(7);
    return std::string(address);
}

}  // namespace husk::shim
