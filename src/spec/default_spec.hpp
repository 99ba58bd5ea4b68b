// The config.json that `husk spec` writes: runc's default spec (runc 1.1 `runc spec`), declared as
// runtime-spec 1.3.0.
#pragma once

#include <cstdint>
#include <string>

namespace husk::spec {

// Pretty-printed with tabs, keys in runc's order, no trailing newline (byte-identical to runc's file but
// for ociVersion); process.args is ["sh"] with a terminal, like runc's.
std::string default_spec_json();

// `husk spec --rootless`, as `runc spec --rootless` changes the default (docs/rootless.md): no network
// namespace, a user namespace mapping `uid` and `gid` as 0 (size 1), /sys as a read-only rbind of the host's,
// no uid=/gid= mount options (those ids are not mapped), and no linux.resources.
std::string rootless_spec_json(std::uint32_t uid, std::uint32_t gid);

}  // namespace husk::spec
