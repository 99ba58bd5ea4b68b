// config.md "Process", "POSIX process", "Linux Process" and "User".
#include "spec/parse_internal.hpp"
#include "spec/parse_landlock.hpp"

namespace husk::spec::detail {
namespace {

using json::Node;
using json::Presence;
using json::read_array;
using json::read_field;

Result<void> parse_user(const Node& node, User& out) {
    TRY(node.expect_object());
    TRY(read_field(node, "uid", out.uid));
    TRY(read_field(node, "gid", out.gid));
    TRY(read_field(node, "umask", out.umask));
    TRY(read_field(node, "additionalGids", out.additional_gids));
    return {};
}

Result<void> parse_console_size(const Node& node, ConsoleSize& out) {
    TRY(node.expect_object());
    TRY(read_field(node, "height", out.height, Presence::required));
    TRY(read_field(node, "width", out.width, Presence::required));
    return {};
}

// Every set is optional; an absent set stays std::nullopt so the caps module can tell "not given" from
// "given and empty" (an empty bounding set drops everything).
Result<void> parse_capabilities(const Node& node, Capabilities& out) {
    TRY(node.expect_object());
    TRY(read_field(node, "bounding", out.bounding));
    TRY(read_field(node, "effective", out.effective));
    TRY(read_field(node, "inheritable", out.inheritable));
    TRY(read_field(node, "permitted", out.permitted));
    TRY(read_field(node, "ambient", out.ambient));
    return {};
}

Result<void> parse_rlimit(const Node& node, Rlimit& out) {
    TRY(node.expect_object());
    TRY(read_field(node, "type", out.type, Presence::required));
    TRY(read_field(node, "hard", out.hard, Presence::required));
    TRY(read_field(node, "soft", out.soft, Presence::required));
    return {};
}

}  // namespace

Result<void> parse_process(const Node& node, Process& out, std::vector<std::string>& unsupported) {
    TRY(node.expect_object());
    TRY(read_field(node, "terminal", out.terminal));
    if (Node size = node.field("consoleSize"); !size.absent())
        TRY(parse_console_size(size, out.console_size.emplace()));
    if (Node user = node.field("user"); !user.absent()) TRY(parse_user(user, out.user));
    TRY(read_field(node, "args", out.args));
    TRY(read_field(node, "env", out.env));
    TRY(read_field(node, "cwd", out.cwd));
    if (Node caps = node.field("capabilities"); !caps.absent()) TRY(parse_capabilities(caps, out.capabilities));
    TRY(read_array(node, "rlimits", out.rlimits, parse_rlimit));
    TRY(read_field(node, "noNewPrivileges", out.no_new_privileges));
    TRY(read_field(node, "oomScoreAdj", out.oom_score_adj));
    TRY(read_field(node, "apparmorProfile", out.apparmor_profile));
    TRY(read_field(node, "selinuxLabel", out.selinux_label));
    // landlock: the open runtime-spec proposal (PR #1241), docs/landlock.md.
    if (Node landlock = node.field("landlock"); !landlock.absent())
        TRY(parse_landlock(landlock, out.landlock.emplace()));
    // Known process features husk does not implement yet.
    for (const char* key : {"scheduler", "ioPriority", "execCPUAffinity"})
        note_unsupported(node.field(key), unsupported);
    return {};
}

}  // namespace husk::spec::detail
