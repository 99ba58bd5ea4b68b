// A user's subordinate ids: its lines in /etc/subuid or /etc/subgid (subuid(5): "name:start:count", the name
// also given as a numeric uid), which newuidmap(1) and newgidmap(1) let it map into a user namespace.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "husk/error.hpp"

namespace husk {

struct IdRange {
    std::uint32_t start = 0;
    std::uint32_t count = 0;
    bool holds(std::uint64_t id) const noexcept { return id >= start && id - start < count; }
};

// `path`'s ranges for the user `name` or numeric `id`; a missing file has none. Lines that are not ranges are
// skipped.
Result<std::vector<IdRange>> subordinate_ids(const std::string& path, const std::string& name, std::uint32_t id);

// The caller's account as /etc/passwd lists it (name, home), read directly rather than through glibc's NSS
// (getpwuid loads modules such as libnss_systemd, which crashed in husk's process under `env -i`, and a module
// may ask another service). Empty fields when the uid has no line there.
struct LocalUser {
    std::string name;
    std::string home;
};
LocalUser local_user(std::uint32_t uid);

}  // namespace husk
