// A tenant's ceilings: <root>/tenants/NAME.json, what `husk tenant set` writes and every tenant run is held to
// (docs/tenants.md). An absent ceiling is no ceiling.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "husk/error.hpp"
#include "husk/unique_fd.hpp"

namespace husk::tenant {

struct Ceilings {
    std::optional<std::uint64_t> cpu_usec;      // cgroup cpu.stat usage_usec of all runs together
    std::optional<std::uint64_t> wall_usec;     // wall time of all runs together (start to end of each)
    std::optional<std::uint64_t> runs;          // runs started
    std::optional<std::uint64_t> output_bytes;  // stdout+stderr of all runs together
    std::optional<std::uint64_t> concurrent;    // runs alive at once
    std::optional<std::uint64_t> period_usec;   // the window the others count in; none: since the last reset
    // Enforced by the kernel across all live runs at once, in the tenant's shared parent cgroup (cgroup v2).
    std::optional<std::uint64_t> memory_bytes;    // memory.max
    std::optional<std::uint64_t> pids;            // pids.max
    std::optional<std::uint64_t> cpu_quota_usec;  // cpu.max quota per 100 ms period (--cpus × 100000)
    bool operator==(const Ceilings&) const = default;
    bool has_cgroup_ceilings() const { return memory_bytes || pids || cpu_quota_usec; }
};

// Like a container id (letters, digits, _ + - ., not "." or "..", not starting with '-'): the name becomes a
// file name. The error starts with "invalid tenant name".
Result<void> validate_name(std::string_view name);

std::string encode_ceilings(const Ceilings& ceilings);
Result<Ceilings> decode_ceilings(std::string_view text);

// <root>/tenants, made (mode 0700) when missing; a symlink there is refused.
Result<std::string> tenants_dir(const std::string& root);
// <root>/tenants, opened without following a symlink: every tenant file is reached through it.
Result<UniqueFd> open_tenants_dir(const std::string& root);
// NAME.json, written atomically (fsync + rename).
Result<void> write_ceilings(const std::string& root, std::string_view name, const Ceilings& ceilings);
// An ErrorKind::not_found error naming `husk tenant set` when the tenant has none.
Result<Ceilings> read_ceilings(const std::string& root, std::string_view name);

}  // namespace husk::tenant
