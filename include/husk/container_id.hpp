// ContainerId: a container's name, made only through parse(), so holding one means it is valid. The id
// becomes a path component (<root>/<id>), a cgroup name and a word on husk's command line, so every verb
// checks it before it goes near the filesystem, as runc's Create and Load both do.
#pragma once

#include <string>
#include <string_view>
#include <utility>

#include "husk/error.hpp"

namespace husk {

class ContainerId {
public:
    // Letters, digits and _ + - . (runc's set, without the ',' its older regular expression let through), not
    // "." or "..", not starting with '-', 1 to 1024 bytes. Errors start with "invalid container id".
    static Result<ContainerId> parse(std::string_view text);

    const std::string& str() const { return value_; }
    bool operator==(const ContainerId&) const = default;

private:
    explicit ContainerId(std::string value) : value_(std::move(value)) {}
    std::string value_;
};

}  // namespace husk
