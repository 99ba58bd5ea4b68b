// Validation of the linux object (config-linux.md): namespaces, id mappings, time offsets, devices,
// device cgroup rules, rootfs propagation, masked and read-only paths; sysctl keys (validate_sysctl.cpp).
#include <algorithm>
#include <array>
#include <set>
#include <string>

#include "spec/sysctl_rules.hpp"
#include "spec/validate_internal.hpp"

namespace husk::spec::detail {
namespace {

// namespaces(7) types as config-linux.md "Namespaces" names them.
constexpr std::array<std::string_view, 8> namespace_types = {"pid",  "network", "mount",  "ipc",
                                                             "uts",  "user",    "cgroup", "time"};

// Propagation modes runc accepts for rootfsPropagation (the spec lists the non-recursive four).
constexpr std::array<std::string_view, 8> propagation_modes = {"private", "rprivate", "slave", "rslave",
                                                               "shared",  "rshared",  "unbindable", "runbindable"};

template <std::size_t N>
bool contains(const std::array<std::string_view, N>& values, std::string_view value) {
    return std::find(values.begin(), values.end(), value) != values.end();
}

const Namespace* find(const Linux& linux, std::string_view type) {
    for (const Namespace& ns : linux.namespaces)
        if (ns.type == type) return &ns;
    return nullptr;
}

std::string indexed(const char* field, std::size_t i) { return std::string(field) + "[" + std::to_string(i) + "]"; }

Result<void> check_namespaces(const std::vector<Namespace>& namespaces) {
    std::set<std::string> seen;
    for (std::size_t i = 0; i < namespaces.size(); ++i) {
        std::string field = indexed("linux.namespaces", i);
        const Namespace& ns = namespaces[i];
        if (!contains(namespace_types, ns.type))
            return fail_msg(field + ".type: unknown namespace " + quoted(ns.type));
        // config-linux.md: "If a namespace type is specified more than once, the runtime MUST generate an error."
        if (!seen.insert(ns.type).second) return fail_msg(field + ".type: duplicate namespace " + quoted(ns.type));
        if (!ns.path.empty()) TRY(check_absolute(ns.path, field + ".path"));
    }
    return {};
}

// config-linux.md "User namespace mappings": mappings belong to a user namespace; a new one (no path)
// needs them, since writing uid_map/gid_map is how it is set up (runc refuses an unmapped one too).
Result<void> check_user_mappings(const Linux& linux) {
    const Namespace* user = find(linux, "user");
    if (!user && !linux.uid_mappings.empty())
        return fail_msg("linux.uidMappings: requires a user namespace in linux.namespaces");
    if (!user && !linux.gid_mappings.empty())
        return fail_msg("linux.gidMappings: requires a user namespace in linux.namespaces");
    if (user && user->path.empty()) {
        if (linux.uid_mappings.empty())
            return fail_msg("linux.uidMappings: a new user namespace needs at least one mapping");
        if (linux.gid_mappings.empty())
            return fail_msg("linux.gidMappings: a new user namespace needs at least one mapping");
    }
    TRY(check_id_mappings(linux.uid_mappings, "linux.uidMappings"));
    TRY(check_id_mappings(linux.gid_mappings, "linux.gidMappings"));
    return {};
}

// time_namespaces(7): offsets exist for CLOCK_MONOTONIC and CLOCK_BOOTTIME only, and can only be
// written before the first process enters a new time namespace.
Result<void> check_time_offsets(const Linux& linux) {
    if (linux.time_offsets.empty()) return {};
    const Namespace* time = find(linux, "time");
    if (!time) return fail_msg("linux.timeOffsets: requires a time namespace in linux.namespaces");
    if (!time->path.empty())
        return fail_msg("linux.timeOffsets: cannot be set when joining an existing time namespace");
    for (const auto& [clock, offset] : linux.time_offsets) {
        std::string field = "linux.timeOffsets." + clock;
        if (clock != "monotonic" && clock != "boottime")
            return fail_msg(field + ": unknown clock " + quoted(clock) + " (expected monotonic or boottime)");
        if (offset.nanosecs >= 1'000'000'000)
            return fail_msg(field + ".nanosecs: must be less than 1000000000, got " + std::to_string(offset.nanosecs));
    }
    return {};
}

// config-linux.md "Devices": c (char), b (block), u (unbuffered char), p (FIFO).
Result<void> check_devices(const std::vector<Device>& devices) {
    for (std::size_t i = 0; i < devices.size(); ++i) {
        std::string field = indexed("linux.devices", i);
        const std::string& type = devices[i].type;
        if (type != "c" && type != "b" && type != "u" && type != "p")
            return fail_msg(field + ".type: unknown device type " + quoted(type) + " (expected c, b, u or p)");
        TRY(check_absolute(devices[i].path, field + ".path"));
    }
    return {};
}

// config-linux.md "Allowed Device List": type a (all), c or b; access a subset of "rwm".
Result<void> check_device_rules(const std::vector<DeviceRule>& rules) {
    for (std::size_t i = 0; i < rules.size(); ++i) {
        std::string field = indexed("linux.resources.devices", i);
        const DeviceRule& rule = rules[i];
        if (!rule.type.empty() && rule.type != "a" && rule.type != "c" && rule.type != "b")
            return fail_msg(field + ".type: unknown device type " + quoted(rule.type) + " (expected a, c or b)");
        if (rule.access.find_first_not_of("rwm") != std::string::npos)
            return fail_msg(field + ".access: invalid access " + quoted(rule.access) + " (only r, w and m)");
    }
    return {};
}

Result<void> check_paths(const std::vector<std::string>& paths, const char* name) {
    for (std::size_t i = 0; i < paths.size(); ++i) TRY(check_absolute(paths[i], indexed(name, i)));
    return {};
}

}  // namespace

Result<void> validate_linux(const Linux& linux) {
    TRY(check_namespaces(linux.namespaces));
    TRY(check_user_mappings(linux));
    TRY(check_time_offsets(linux));
    TRY(check_devices(linux.devices));
    if (linux.resources) TRY(check_device_rules(linux.resources->devices));
    if (!linux.rootfs_propagation.empty() && !contains(propagation_modes, linux.rootfs_propagation))
        return fail_msg("linux.rootfsPropagation: unknown propagation " + quoted(linux.rootfs_propagation) +
                        " (expected private, rprivate, slave, rslave, shared, rshared, unbindable or runbindable)");
    TRY(check_paths(linux.masked_paths, "linux.maskedPaths"));
    TRY(check_paths(linux.readonly_paths, "linux.readonlyPaths"));
    TRY(check_sysctls(linux));
    return {};
}

}  // namespace husk::spec::detail
