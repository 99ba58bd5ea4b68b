// The cpuset controller (cgroup-v2.rst "Cpuset"): linux.resources.cpu's cpus and mems → cpuset.cpus and
// cpuset.mems, read back as sets. cgroup v2 has no cpuset counters.
#include "cgroup/controller.hpp"

#include <set>

#include "cgroup/readback_format.hpp"

namespace husk::cgroup {
namespace {

Result<void> plan(const spec::Resources& resources, Writes& out) {
    if (!resources.cpu) return {};
    const spec::CpuResources& cpu = *resources.cpu;
    if (!cpu.cpus.empty()) out.add("cpu.cpus", "cpuset", "cpuset.cpus", cpu.cpus);
    if (!cpu.mems.empty()) out.add("cpu.mems", "cpuset", "cpuset.mems", cpu.mems);
    return {};
}

// "0-2,4" → {0,1,2,4}. Stride forms ("0-8:2/4") are left to "unknown".
std::optional<std::set<unsigned>> parse_list(std::string_view text) {
    std::set<unsigned> out;
    for (std::string_view part : split(trim(text), ",")) {
        part = trim(part);
        std::size_t dash = part.find('-');
        auto low = parse_number<unsigned>(part.substr(0, dash));
        auto high = dash == std::string_view::npos ? low : parse_number<unsigned>(part.substr(dash + 1));
        if (!low || !high || *high < *low || *high - *low > 65536) return std::nullopt;
        for (unsigned i = *low; i <= *high; ++i) out.insert(i);
    }
    return out;
}

Readback compare_list(std::string_view written, std::string_view read) {
    auto w = parse_list(written);
    if (!w) return Readback::unknown;
    return verdict(parse_list(read) == w);
}

std::optional<Readback> compare(std::string_view file, std::string_view written, std::string_view read,
                                std::size_t) {
    if (one_of(file, {"cpuset.cpus", "cpuset.mems", "cpuset.cpus.exclusive"})) return compare_list(written, read);
    return std::nullopt;
}

}  // namespace

// Its fields' requests are listed with the rest of linux.resources.cpu, in cpu.cpp.
extern const Controller cpuset_controller{"cpuset", nullptr, plan, compare, nullptr};

}  // namespace husk::cgroup
