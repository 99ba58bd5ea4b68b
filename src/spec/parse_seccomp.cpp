// linux.seccomp, config-linux.md "Seccomp" (runtime-spec 1.3.0):
//   {"defaultAction": "...", "defaultErrnoRet": uint, "architectures": [...], "flags": [...],
//    "listenerPath": "...", "listenerMetadata": "...",
//    "syscalls": [{"names": [...], "action": "...", "errnoRet": uint,
//                  "args": [{"index": uint, "value": uint64, "valueTwo": uint64, "op": "..."}]}]}
#include "spec/parse_seccomp.hpp"

namespace husk::spec::detail {
namespace {

using json::Node;
using json::Presence;
using json::read_array;
using json::read_field;

// "args": index, value and op are REQUIRED, valueTwo is OPTIONAL (0 when absent, as in runc).
Result<void> parse_arg(const Node& node, Seccomp::Arg& out) {
    TRY(node.expect_object());
    TRY(read_field(node, "index", out.index, Presence::required));
    TRY(read_field(node, "value", out.value, Presence::required));
    TRY(read_field(node, "valueTwo", out.value_two));
    TRY(read_field(node, "op", out.op, Presence::required));
    return {};
}

Result<void> parse_syscall(const Node& node, Seccomp::Syscall& out) {
    TRY(node.expect_object());
    Node names = node.field("names");
    TRY(json::require(names));
    TRY(json::read(names, out.names));
    // "names MUST contain at least one entry".
    if (out.names.empty()) return fail(names.error("must contain at least one syscall name"));
    TRY(read_field(node, "action", out.action, Presence::required));
    TRY(read_field(node, "errnoRet", out.errno_ret));
    TRY(read_array(node, "args", out.args, parse_arg));
    return {};
}

}  // namespace

Result<void> parse_seccomp(const Node& node, Seccomp& out) {
    TRY(node.expect_object());
    TRY(read_field(node, "defaultAction", out.default_action, Presence::required));
    TRY(read_field(node, "defaultErrnoRet", out.default_errno_ret));
    TRY(read_field(node, "architectures", out.architectures));
    TRY(read_field(node, "flags", out.flags));
    TRY(read_field(node, "listenerPath", out.listener_path));
    TRY(read_field(node, "listenerMetadata", out.listener_metadata));
    TRY(read_array(node, "syscalls", out.syscalls, parse_syscall));
    return {};
}

}  // namespace husk::spec::detail
