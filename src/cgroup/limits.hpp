// linux.resources → cgroup v2 interface files: what to write (plan_limits, pure), and writing each file
// followed by reading it back (apply_limits), so a value the kernel did not take is an error, not a surprise.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cgroup/location.hpp"
#include "husk/error.hpp"
#include "husk/spec.hpp"
#include "spec/settings.hpp"

namespace husk::cgroup {

// One write to one interface file of the container's cgroup.
struct LimitWrite {
    std::string field;       // spec field for errors: "linux.resources.memory.limit"
    std::string controller;  // "memory"; "" for cgroup core files ("cgroup.max.depth")
    std::string file;        // interface file: "memory.max"
    std::string value;       // exact text written: "33554432", "max 100000", "8:0 rbps=1048576"
    bool verbatim = false;   // from linux.resources.unified: read back only when husk knows the file's format
};

// Create writes every limit given; update changes only the fields present (see plan_limits).
enum class LimitMode { create, update };

// How linux.resources.pids.limit reads, by the config's ociVersion. Before runtime-spec 1.3 a limit ≤ 0 meant
// "no limit" (what runc ≤ 1.3 and podman 4.3, which writes 0 for --pids-limit -1, rely on). 1.3 (PR #1279):
// -1 means no limit ("max"), 0 is a real limit, and other negative values are undefined (refused).
enum class PidsLimitReading { before_1_3, spec_1_3 };
// before_1_3 for "1.0.x", "1.1.x", "1.2.x" (with any pre-release or build suffix: "1.0.2-dev"), else spec_1_3.
PidsLimitReading pids_limit_reading(std::string_view oci_version);

struct LimitOptions {
    LimitMode mode = LimitMode::create;
    // memory.oom.group = 1 with a memory limit (annotation run.husk.oom-group, default true).
    bool oom_group = true;
    PidsLimitReading pids_reading = PidsLimitReading::spec_1_3;
    // Whether an interface file exists in the target cgroup. Empty: the cgroup does not exist yet (prepare),
    // every file is assumed to exist and unified keys are checked later, against the real directory.
    std::function<bool(std::string_view)> has_file;
    // With has_file: the target cgroup's cgroup.controllers; a unified key of a controller not listed is refused.
    std::vector<std::string> controllers;
    std::string where;  // the cgroup directory, for errors: "/sys/fs/cgroup/husk/c1"
    // Update only: the current memory.max (-1 = "max") for a swap given without a limit, and the current
    // cpu.max quota ("max" or a number) for a period given without a quota.
    std::optional<std::int64_t> current_memory_limit;
    std::string current_cpu_quota;
};

// Pure: the writes for resources, in a working order (cpu.weight before cpu.idle, cpu.max before
// cpu.max.burst, unified last so it can override). Fields cgroup v2 cannot honour are errors naming the field.
// linux.resources.devices is not a file write (see device_filter.hpp) and is ignored here.
Result<std::vector<LimitWrite>> plan_limits(const spec::Resources& resources, const LimitOptions& options);

// The controllers the writes need (no duplicates, in first-use order; core files need none).
std::vector<std::string> needed_controllers(const std::vector<LimitWrite>& writes);

// runtime-spec cpu.shares → cgroup v2 cpu.weight, as runc ≥ 1.3.2 / 1.4 and crun ≥ 1.23 convert.
std::uint64_t cpu_shares_to_weight(std::uint64_t shares);
// blockIO weight [10, 1000] → io.weight [1, 10000] (runc's linear ConvertBlkIOToIOWeightValue).
std::uint64_t blkio_weight_to_io_weight(std::uint64_t weight);

// Writes each file of the cgroup open at dir_fd, reads it back and compares after the kernel's own
// normalisation (see limit_readback.hpp). `where` names the cgroup in errors. Stops at the first failure.
Result<void> apply_limits(int dir_fd, const std::string& where, const std::vector<LimitWrite>& writes);

// For `husk update`: only the fields present in `resources` change (a swap without a limit is taken against
// the current memory.max; a period without a quota keeps the current quota; a limit without a swap sets
// memory.swap.max to 0, as at create). Devices, if present, replace the
// container's eBPF device program (the spec rules plus the default allow list and container_spec's
// linux.devices): the new program is attached before the old one is detached. Fails closed like create when
// a controller is missing; nothing changes when validation fails. memory.checkBeforeUpdate refuses a memory
// limit below the current usage (memory.current), as runc does. `husk` is container_spec's run.husk.*
// annotations, parsed by the caller (run.husk.oom-group).
Result<void> update_cgroup(const CgroupLocation& cgroup, const spec::Resources& resources,
                           const spec::Spec& container_spec, const spec::HuskSettings& husk);

}  // namespace husk::cgroup
