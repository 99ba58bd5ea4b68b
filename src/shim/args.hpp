// The shim's command line, as containerd 1.6 writes it (runtime/v2/shim: Go's flag package, so `-flag value`,
// `--flag value` and `-flag=value` all parse): `-namespace NS -address GRPC -publish-binary CONTAINERD -id ID
// [-debug] [-bundle DIR] start|delete`, and the serving shim's own re-entry without an action.
#pragma once

#include <span>
#include <string>

#include "husk/error.hpp"

namespace husk::shim {

enum class Action { serve, start, remove };  // remove: containerd's `delete` (cleanup after a dead shim)

struct ShimArgs {
    std::string ns, address, publish_binary, id, bundle, socket;
    bool debug = false;
    bool version = false;
    Action action = Action::serve;
};

Result<ShimArgs> parse_shim_args(std::span<char* const> args);

}  // namespace husk::shim
