#include "cgroup/unified.hpp"

#include <algorithm>
#include <array>

namespace husk::cgroup {
namespace {

// cgroup-v2.rst "Core Interface Files": cgroup.max.descendants and cgroup.max.depth cap how many cgroups
// and how deep the container may create below its own cgroup; limits, and only on its own subtree. The
// rest change membership (procs, threads), state (freeze, kill), the tree (subtree_control, type) or
// accounting (pressure), or are read-only (controllers, events, stat).
constexpr std::array<std::string_view, 2> core_limits = {"cgroup.max.depth", "cgroup.max.descendants"};

bool is_name_char(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-' ||
           c == '.';
}

// Control characters and non-ASCII bytes shown as '?', so the message stays one printable line.
std::string field(std::string_view key) {
    std::string shown;
    for (char c : key) shown += c >= 0x20 && c < 0x7f ? c : '?';
    return "linux.resources.unified[\"" + shown + "\"]";
}

}  // namespace

Result<std::string> unified_key_controller(std::string_view key) {
    std::size_t dot = key.find('.');
    if (dot == 0 || dot == std::string_view::npos || key.back() == '.' || key.find("..") != std::string_view::npos ||
        !std::all_of(key.begin(), key.end(), is_name_char))
        return fail_msg(field(key) + ": not a cgroup v2 interface file name (<controller>.<file>, a plain name)");
    std::string controller(key.substr(0, dot));
    if (controller != "cgroup") return controller;
    if (std::find(core_limits.begin(), core_limits.end(), key) != core_limits.end()) return std::string();
    return fail_msg(field(key) + ": refused: a cgroup core interface file, not a limit (of cgroup.*, only "
                    "cgroup.max.depth and cgroup.max.descendants may be set)");
}

}  // namespace husk::cgroup
