// Test helpers (unit tests only) for the controllers' plans and read backs: the writes as "file=value", the
// first error, a cgroup with exactly the given files.
#pragma once

#include <catch2/catch.hpp>

#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

#include "cgroup/limit_readback.hpp"
#include "cgroup/limits.hpp"

namespace husk::cgroup::testing {

// "file=value" per write, for compact expectations.
inline std::vector<std::string> plan(const spec::Resources& r, const LimitOptions& options = {}) {
    auto writes = plan_limits(r, options);
    if (!writes) FAIL(writes.error().message());
    std::vector<std::string> out;
    for (const LimitWrite& w : *writes) out.push_back(w.file + "=" + w.value);
    return out;
}

inline std::string error_of(const spec::Resources& r, const LimitOptions& options = {}) {
    auto writes = plan_limits(r, options);
    return writes ? "" : writes.error().message();
}

// A cgroup whose files are exactly `files`.
inline LimitOptions probing(std::vector<std::string> files) {
    LimitOptions options;
    options.where = "/sys/fs/cgroup/c";
    options.has_file = [files](std::string_view name) {
        return std::find(files.begin(), files.end(), name) != files.end();
    };
    return options;
}

// compare_readback with 4 KiB pages.
inline Readback check(std::string_view file, std::string_view written, std::string_view read) {
    return compare_readback(file, written, read, 4096);
}

}  // namespace husk::cgroup::testing
