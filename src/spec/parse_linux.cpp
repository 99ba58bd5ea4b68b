// config-linux.md: namespaces, id mappings, time offsets, devices, cgroupsPath, rootfs propagation,
// masked/readonly paths, sysctl, mountLabel. linux.resources is in parse_resources.cpp.
#include "spec/parse_internal.hpp"
#include "spec/parse_seccomp.hpp"

namespace husk::spec::detail {
namespace {

using json::Node;
using json::Presence;
using json::read_array;
using json::read_field;

Result<void> parse_namespace(const Node& node, Namespace& out) {
    TRY(node.expect_object());
    TRY(read_field(node, "type", out.type, Presence::required));
    TRY(read_field(node, "path", out.path));
    return {};
}

// "Time offsets": an object keyed by clock name ("monotonic", "boottime"); both members optional.
Result<void> parse_time_offsets(const Node& node, std::map<std::string, TimeOffset>& out) {
    for (auto& [clock, value] : TRY(node.as_object())) {
        TRY(value.expect_object());
        TimeOffset offset;
        TRY(read_field(value, "secs", offset.secs));
        TRY(read_field(value, "nanosecs", offset.nanosecs));
        out[clock] = offset;
    }
    return {};
}

// "Devices": path and type are required; major/minor are required for c, b and u but not for p, so
// absent numbers stay 0 and validation judges the combination.
Result<void> parse_device(const Node& node, Device& out) {
    TRY(node.expect_object());
    TRY(read_field(node, "path", out.path, Presence::required));
    TRY(read_field(node, "type", out.type, Presence::required));
    TRY(read_field(node, "major", out.major));
    TRY(read_field(node, "minor", out.minor));
    TRY(read_field(node, "fileMode", out.file_mode));
    TRY(read_field(node, "uid", out.uid));
    TRY(read_field(node, "gid", out.gid));
    return {};
}

}  // namespace

Result<void> parse_id_mapping(const Node& node, IdMapping& out) {
    TRY(node.expect_object());
    TRY(read_field(node, "containerID", out.container_id, Presence::required));
    TRY(read_field(node, "hostID", out.host_id, Presence::required));
    TRY(read_field(node, "size", out.size, Presence::required));
    return {};
}

Result<void> parse_linux(const Node& node, Linux& out, std::vector<std::string>& unsupported) {
    TRY(node.expect_object());
    TRY(read_array(node, "namespaces", out.namespaces, parse_namespace));
    TRY(read_array(node, "uidMappings", out.uid_mappings, parse_id_mapping));
    TRY(read_array(node, "gidMappings", out.gid_mappings, parse_id_mapping));
    if (Node offsets = node.field("timeOffsets"); !offsets.absent())
        TRY(parse_time_offsets(offsets, out.time_offsets));
    TRY(read_array(node, "devices", out.devices, parse_device));
    TRY(read_field(node, "cgroupsPath", out.cgroups_path));
    if (Node resources = node.field("resources"); !resources.absent())
        TRY(parse_resources(resources, out.resources.emplace()));
    TRY(read_field(node, "rootfsPropagation", out.rootfs_propagation));
    TRY(read_field(node, "maskedPaths", out.masked_paths));
    TRY(read_field(node, "readonlyPaths", out.readonly_paths));
    TRY(read_field(node, "sysctl", out.sysctl));
    TRY(read_field(node, "mountLabel", out.mount_label));
    // An empty seccomp object means "no filter", as in runc (no defaultAction and no syscalls).
    if (Node seccomp = node.field("seccomp"); !seccomp.absent()) {
        TRY(seccomp.expect_object());
        if (seccomp.has_content()) TRY(parse_seccomp(seccomp, out.seccomp.emplace()));
    }
    // Known Linux features husk does not implement yet (validation refuses them, failing closed).
    for (const char* key : {"intelRdt", "personality", "memoryPolicy", "netDevices"})
        note_unsupported(node.field(key), unsupported);
    return {};
}

}  // namespace husk::spec::detail
