#include "husk/container_id.hpp"

#include <string>

#include "base/quote.hpp"

namespace husk {

Result<ContainerId> ContainerId::parse(std::string_view id) {
    constexpr std::size_t max_length = 1024;
    if (id.empty()) return fail_msg("invalid container id \"\": must not be empty");
    // Error messages have a fixed size; a huge id is not worth echoing.
    if (id.size() > max_length)
        return fail_msg("invalid container id: " + std::to_string(id.size()) + " characters long (at most " +
                        std::to_string(max_length) + ")");
    std::string prefix = "invalid container id " + quoted(id) + ": ";
    // The only names of the allowed characters that are not a directory of their own.
    if (id == "." || id == "..") return fail_msg(prefix + "must not be \".\" or \"..\"");
    // runc's libcontainer accepts it, but its command line and ours read "-x" as an option, so such a
    // container could only be named after "--"; containerd's identifiers must start with a letter or digit.
    if (id[0] == '-') return fail_msg(prefix + "must not start with '-' (it would be read as an option)");
    for (char c : id) {
        bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
                  c == '+' || c == '-' || c == '.';
        if (!ok) return fail_msg(prefix + "only letters, digits and _ + - . are allowed");
    }
    return ContainerId(std::string(id));
}

}  // namespace husk
