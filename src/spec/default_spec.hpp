// The config.json that `husk spec` writes: runc's default spec (runc 1.1 `runc spec`), declared as
// runtime-spec 1.3.0.
#pragma once

#include <string>

namespace husk::spec {

// Pretty-printed with tabs, keys in runc's order, no trailing newline (byte-identical to runc's file but
// for ociVersion); process.args is ["sh"] with a terminal, like runc's.
std::string default_spec_json();

}  // namespace husk::spec
