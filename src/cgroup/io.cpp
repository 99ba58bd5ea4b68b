// The io controller (cgroup-v2.rst "IO"): linux.resources.blockIO → io.weight (or io.bfq.weight) and
// io.max; per-device lines read back; io.stat for runc's blkio stats.
#include "cgroup/controller.hpp"

#include <algorithm>

#include "cgroup/readback_format.hpp"

namespace husk::cgroup {
namespace {

void list_block_io(const spec::BlockIoResources& io, Requests& out) {
    out.add_if(io.weight, "blockIO.weight", "io");
    out.add_if(io.leaf_weight, "blockIO.leafWeight", "io");
    if (!io.weight_device.empty()) out.add("blockIO.weightDevice", "io");
    if (!io.throttle_read_bps_device.empty()) out.add("blockIO.throttleReadBpsDevice", "io");
    if (!io.throttle_write_bps_device.empty()) out.add("blockIO.throttleWriteBpsDevice", "io");
    if (!io.throttle_read_iops_device.empty()) out.add("blockIO.throttleReadIOPSDevice", "io");
    if (!io.throttle_write_iops_device.empty()) out.add("blockIO.throttleWriteIOPSDevice", "io");
}

void list(const spec::Resources& resources, Requests& out) {
    if (resources.block_io) list_block_io(*resources.block_io, out);
}

Result<std::string> device(std::int64_t major, std::int64_t minor, const std::string& field) {
    if (major < 0 || minor < 0 || major > 0xfff || minor > 0xfffff)
        return refuse(field, "device " + std::to_string(major) + ":" + std::to_string(minor) + " is out of range");
    return std::to_string(major) + ":" + std::to_string(minor);
}

// BFQ takes the v1 weight range (1..1000) as it is; io.weight (1..10000) needs runc's linear conversion,
// defined for the v1 range 10..1000.
Result<std::string> io_weight_value(std::uint16_t weight, bool bfq, const std::string& field) {
    if (bfq) return std::to_string(weight);
    if (weight < 10 || weight > 1000) return refuse(field, std::to_string(weight) + " is outside the range 10-1000");
    return std::to_string(blkio_weight_to_io_weight(weight));
}

Result<void> plan_block_io(const spec::BlockIoResources& io, Writes& out) {
    if (io.leaf_weight) return refuse("blockIO.leafWeight", "not available on cgroup v2 (there are no leaf weights)");
    bool bfq = out.has_file("io.bfq.weight");
    const char* weight_file = bfq ? "io.bfq.weight" : "io.weight";
    // Each TRY before the call, not among its arguments: returning from the middle of a call's arguments, g++
    // does not destroy those already built (a std::string here).
    if (io.weight.value_or(0) != 0) {
        std::string value = TRY(io_weight_value(*io.weight, bfq, "blockIO.weight"));
        out.add("blockIO.weight", "io", weight_file, std::move(value));
    }
    for (std::size_t i = 0; i < io.weight_device.size(); ++i) {
        const spec::WeightDevice& entry = io.weight_device[i];
        std::string field = "blockIO.weightDevice[" + std::to_string(i) + "]";
        if (entry.leaf_weight) return refuse(field + ".leafWeight", "not available on cgroup v2 (there are no leaf weights)");
        if (!entry.weight) return refuse(field, "has no weight");
        std::string dev = TRY(device(entry.major, entry.minor, field));
        std::string weight = TRY(io_weight_value(*entry.weight, bfq, field));
        out.add(field, "io", weight_file, dev + " " + weight);
    }
    struct Throttle {
        const std::vector<spec::ThrottleDevice>* list;
        const char* name;
        const char* key;
    };
    for (const Throttle& t : {Throttle{&io.throttle_read_bps_device, "throttleReadBpsDevice", "rbps"},
                              Throttle{&io.throttle_write_bps_device, "throttleWriteBpsDevice", "wbps"},
                              Throttle{&io.throttle_read_iops_device, "throttleReadIOPSDevice", "riops"},
                              Throttle{&io.throttle_write_iops_device, "throttleWriteIOPSDevice", "wiops"}}) {
        for (std::size_t i = 0; i < t.list->size(); ++i) {
            const spec::ThrottleDevice& entry = (*t.list)[i];
            std::string field = std::string("blockIO.") + t.name + "[" + std::to_string(i) + "]";
            std::string dev = TRY(device(entry.major, entry.minor, field));
            out.add(field, "io", "io.max", dev + " " + t.key + "=" + std::to_string(entry.rate));
        }
    }
    return {};
}

Result<void> plan(const spec::Resources& resources, Writes& out) {
    if (resources.block_io) TRY(plan_block_io(*resources.block_io, out));
    return {};
}

// io.max: "MAJ:MIN rbps=N wbps=max ..."; the kernel prints every key of a device with any limit, and no line
// for a device without limits.
Readback compare_io_max(std::string_view written, std::string_view read) {
    std::vector<std::string_view> lines = split(written, "\n");
    if (lines.empty()) return Readback::unknown;
    for (std::string_view line : lines) {
        std::vector<std::string_view> tokens = split(line, " \t");
        if (tokens.size() < 2 || tokens[0].find(':') == std::string_view::npos) return Readback::unknown;
        std::vector<std::string_view> have = device_line(read, tokens[0]);
        for (std::size_t i = 1; i < tokens.size(); ++i) {
            std::size_t eq = tokens[i].find('=');
            if (eq == std::string_view::npos) return Readback::unknown;
            std::string_view key = tokens[i].substr(0, eq + 1), value = tokens[i].substr(eq + 1);
            if (have.empty()) {
                if (value != "max") return Readback::mismatch;
                continue;
            }
            auto it = std::find_if(have.begin() + 1, have.end(), [&](std::string_view t) { return t.starts_with(key); });
            if (it == have.end()) return Readback::unknown;
            if (compare_number_or_max(value, it->substr(key.size())) != Readback::match) return Readback::mismatch;
        }
    }
    return Readback::match;
}

// io.weight and io.bfq.weight: "N" or "default N" sets the default, "MAJ:MIN N" a device, "MAJ:MIN default"
// drops the device's own weight. Read back as "default N" and "MAJ:MIN N" lines.
Readback compare_weights(std::string_view written, std::string_view read) {
    std::vector<std::string_view> lines = split(written, "\n");
    if (lines.empty()) return Readback::unknown;
    for (std::string_view line : lines) {
        std::vector<std::string_view> tokens = split(line, " \t");
        if (tokens.size() == 1) tokens.insert(tokens.begin(), "default");
        if (tokens.size() != 2) return Readback::unknown;
        std::vector<std::string_view> have = device_line(read, tokens[0]);
        if (tokens[0] != "default" && tokens[1] == "default") {
            if (!have.empty()) return Readback::mismatch;
            continue;
        }
        if (!parse_number<std::uint64_t>(tokens[1])) return Readback::unknown;
        if (have.size() != 2 || have[1] != tokens[1]) return Readback::mismatch;
    }
    return Readback::match;
}

std::optional<Readback> compare(std::string_view file, std::string_view written, std::string_view read,
                                std::size_t) {
    if (file == "io.max") return compare_io_max(written, read);
    if (file == "io.weight" || file == "io.bfq.weight") return compare_weights(written, read);
    return std::nullopt;
}

Result<void> read_counters(int dir_fd, const std::string& where, Stats& stats) {
    if (auto text = TRY(read_optional_file(dir_fd, "io.stat", where)))
        stats.blkio = TRY(parse_io_stat(*text, where + "/io.stat"));
    return {};
}

}  // namespace

extern const Controller io_controller{"io", list, plan, compare, read_counters};

std::uint64_t blkio_weight_to_io_weight(std::uint64_t weight) {
    if (weight == 0) return 0;
    return 1 + (weight - 10) * 9999 / 990;
}


}  // namespace husk::cgroup
