// process.rlimits (runtime-spec config.md "POSIX process"): resolved and checked in the parent, set in the
// container child with prlimit(2).
#pragma once

#include <sys/resource.h>

#include <optional>
#include <vector>

#include "husk/error.hpp"
#include "husk/spec.hpp"

namespace husk::rlimit {

struct RlimitEntry {
    int resource = 0;            // RLIMIT_NOFILE
    const char* name = nullptr;  // "RLIMIT_NOFILE", static storage: the child names it without allocating
    ::rlimit value = {};
};

struct RlimitPlan {
    std::vector<RlimitEntry> entries;
};

// Names → RLIMIT_* (unknown: `process.rlimits[1].type: unknown rlimit "RLIMIT_FOO"`); a duplicated type
// and soft > hard are errors (the spec requires the first). A hard limit above husk's own is an error here,
// not a late EPERM in the child, unless husk has CAP_SYS_RESOURCE in its effective set (only a privileged
// process may raise a hard limit: setrlimit(2)). Hosts whose root runs without CAP_SYS_RESOURCE are real.
// `address_space`: run.husk.address-space, RLIMIT_AS soft and hard, added after them; refused together with a
// process.rlimits RLIMIT_AS (two values for one limit).
Result<RlimitPlan> prepare_rlimits(const spec::Process& process, std::optional<rlim_t> address_space = std::nullopt);

// prlimit(0, ...) for every entry; the error names the resource.
Result<void> apply_rlimits(const RlimitPlan& plan) noexcept;

}  // namespace husk::rlimit
