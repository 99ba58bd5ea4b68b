// process.landlock, in the shape of the open runtime-spec proposal (opencontainers/runtime-spec PR #1241):
//   {"ruleset": {"handledAccessFS": [...], "handledAccessNetwork": [...], "scoped": [...]},
//    "rules": {"pathBeneath": [{"allowedAccess": [...], "paths": [...]}],
//              "netPort": [{"allowedAccess": [...], "ports": [...]}]},
//    "disableBestEffort": bool}
// husk also takes the kernel's numeric values: an element that is a JSON number is a raw bit mask, and so
// is a whole access property given as one number.
#include "spec/parse_landlock.hpp"

#include <string>
#include <vector>

namespace husk::spec::detail {
namespace {

using json::Node;
using json::read_array;
using json::read_field;

Result<Landlock::Access> parse_access(const Node& node) {
    if (auto name = node.as_string()) return Landlock::Access{std::move(*name), 0};
    if (auto bits = node.as_uint64()) return Landlock::Access{{}, *bits};
    return fail(node.error("expected an access right name or a numeric bit mask"));
}

// An access property: an array of names and numbers, or one number (a mask).
Result<void> read_access(const Node& parent, std::string_view key, std::vector<Landlock::Access>& out) {
    Node node = parent.field(key);
    if (node.absent()) return {};
    if (auto mask = node.as_uint64()) {
        out.push_back({{}, *mask});
        return {};
    }
    auto elements = node.as_array();
    if (!elements) return fail(node.error("expected an array of access right names or a numeric bit mask"));
    for (const Node& element : *elements) out.push_back(TRY(parse_access(element)));
    return {};
}

Result<void> parse_path_beneath(const Node& node, Landlock::PathBeneath& out) {
    TRY(node.expect_object());
    TRY(read_access(node, "allowedAccess", out.allowed_access));
    TRY(read_field(node, "paths", out.paths));
    return {};
}

Result<void> parse_net_port(const Node& node, Landlock::NetPort& out) {
    TRY(node.expect_object());
    TRY(read_access(node, "allowedAccess", out.allowed_access));
    TRY(read_field(node, "ports", out.ports));  // uint16: 65536 is a range error naming the element
    return {};
}

}  // namespace

Result<void> parse_landlock(const Node& node, Landlock& out) {
    TRY(node.expect_object());
    if (Node ruleset = node.field("ruleset"); !ruleset.absent()) {
        TRY(ruleset.expect_object());
        TRY(read_access(ruleset, "handledAccessFS", out.handled_access_fs));
        TRY(read_access(ruleset, "handledAccessNetwork", out.handled_access_network));
        TRY(read_access(ruleset, "scoped", out.scoped));
    }
    if (Node rules = node.field("rules"); !rules.absent()) {
        TRY(rules.expect_object());
        TRY(read_array(rules, "pathBeneath", out.path_beneath, parse_path_beneath));
        TRY(read_array(rules, "netPort", out.net_port, parse_net_port));
    }
    TRY(read_field(node, "disableBestEffort", out.disable_best_effort));
    return {};
}

}  // namespace husk::spec::detail
