// The one way husk parses JSON (config.json, update --resources, state records, the seccomp listener's
// state): yajl's tree, but only after a bounded first pass (a byte scan, and yajl's event parser wherever the
// scan cannot prove the text plain), so hostile text cannot exhaust memory or the stack, and no string can lose
// its tail to an embedded NUL.
#pragma once

#include <yajl/yajl_tree.h>

#include <cstddef>
#include <memory>
#include <string_view>
#include <type_traits>

#include "husk/error.hpp"

namespace husk {

struct JsonTreeFree {
    void operator()(yajl_val value) const { yajl_tree_free(value); }
};
using JsonTree = std::unique_ptr<std::remove_pointer_t<yajl_val>, JsonTreeFree>;

// A real config (a large seccomp profile included) is well under 1 MiB; yajl's tree costs several times the
// text in memory.
inline constexpr std::size_t max_json_bytes = std::size_t{4} << 20;
// yajl_tree_free recurses once per level: a million nested `[` overflow the stack. The deepest
// runtime-spec property (linux.seccomp.syscalls[].args[]) is 5 levels down.
inline constexpr std::size_t max_json_depth = 256;

// Parses a whole document. Errors:
//   "invalid JSON: <yajl's first message line>"                  (syntax)
//   "invalid JSON: <n> bytes, more than husk reads (4 MiB)"       (size)
//   "invalid JSON: nested deeper than 256 levels"                 (depth)
//   "invalid JSON: NUL byte at offset <n>"                        (a raw NUL would end yajl's text early)
//   "<json path>: the string contains a NUL character (\u0000)"  (it would cut args, env, paths short)
// Paths look like spec's: "process.args[0]", "(top level)" for the document itself.
Result<JsonTree> parse_json_tree(std::string_view text);

}  // namespace husk
