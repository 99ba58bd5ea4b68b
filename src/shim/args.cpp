#include "shim/args.hpp"

#include <string_view>

namespace husk::shim {

Result<ShimArgs> parse_shim_args(std::span<char* const> args) {
    ShimArgs out;
    std::size_t i = 1;
    for (; i < args.size(); ++i) {
        std::string_view arg = args[i];
        if (arg == "--") { ++i; break; }
        if (arg.size() < 2 || arg[0] != '-') break;
        arg.remove_prefix(arg.starts_with("--") ? 2 : 1);
        std::string_view name = arg.substr(0, arg.find('='));
        if (name == "debug" || name == "v") {
            bool on = arg.size() == name.size() || arg.substr(name.size() + 1) == "true";
            (name == "debug" ? out.debug : out.version) = on;
            continue;
        }
        std::string* target = name == "namespace"        ? &out.ns
                              : name == "address"        ? &out.address
                              : name == "publish-binary" ? &out.publish_binary
                              : name == "id"             ? &out.id
                              : name == "bundle"         ? &out.bundle
                              : name == "socket"         ? &out.socket
                                                         : nullptr;
        if (!target) return fail_msg("flag provided but not defined: -" + std::string(name));
        if (arg.size() > name.size()) {
            *target = std::string(arg.substr(name.size() + 1));
        } else {
            if (i + 1 >= args.size()) return fail_msg("flag needs an argument: -" + std::string(name));
            *target = args[++i];
        }
    }
    if (i < args.size()) {
        std::string_view action = args[i];
        if (action == "start") out.action = Action::start;
        else if (action == "delete") out.action = Action::remove;
        else return fail_msg("unknown action \"" + std::string(action) + "\" (start, delete)");
        if (i + 1 < args.size()) return fail_msg("unexpected argument after " + std::string(action));
    }
    if (!out.version && out.ns.empty()) return fail_msg("shim namespace cannot be empty (-namespace)");
    if (!out.version && out.id.empty()) return fail_msg("the task's id is missing (-id)");
    return out;
}

}  // namespace husk::shim
