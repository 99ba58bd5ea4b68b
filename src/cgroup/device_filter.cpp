#include "cgroup/device_filter.hpp"

#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <cstdint>
#include <limits>
#include <optional>

#include "cgroup/bpf_program.hpp"
#include "husk/unique_fd.hpp"

namespace husk::cgroup {
namespace {

// The name tells husk's program apart from others on the same cgroup when `update` replaces it.
constexpr ProgramKind device_program_kind{BPF_PROG_TYPE_CGROUP_DEVICE, BPF_CGROUP_DEVICE, device_program_name,
                                          "device program (BPF_PROG_TYPE_CGROUP_DEVICE)"};

// Registers after the prologue: r2 device type, r3 the requested access bits no rule has decided yet (all of
// them at first), r4 major, r5 minor (struct bpf_cgroup_dev_ctx: access_type = (BPF_DEVCG_ACC_* << 16) |
// BPF_DEVCG_DEV_*, major, minor).
constexpr std::uint8_t ctx = BPF_REG_1, type_reg = BPF_REG_2, undecided_reg = BPF_REG_3, major_reg = BPF_REG_4,
                       minor_reg = BPF_REG_5, mask_reg = BPF_REG_6;

struct Matcher {
    std::optional<std::uint32_t> type, major, minor;  // nullopt = any
    std::uint32_t access = 0;                         // BPF_DEVCG_ACC_* bits
    bool allow = false;

    bool matches_everything() const { return !type && !major && !minor; }
};

using insn::emit_return;
using insn::jump;
using insn::jump32_if;
bpf_insn load_word(std::uint8_t dst, std::int16_t off) { return insn::load_word(dst, ctx, off); }

std::string field(std::size_t index, const char* name) {
    return "linux.resources.devices[" + std::to_string(index) + "]." + name;
}

Result<std::optional<std::uint32_t>> parse_number(const std::optional<std::int64_t>& value, std::size_t index,
                                                  const char* name) {
    if (!value || *value == -1) return std::optional<std::uint32_t>();  // absent (or runc's -1) = wildcard
    if (*value < 0 || *value > std::numeric_limits<std::uint32_t>::max())
        return fail_msg(field(index, name) + ": " + std::to_string(*value) + " is not a device number");
    return std::optional<std::uint32_t>(static_cast<std::uint32_t>(*value));
}

Result<Matcher> parse_rule(const spec::DeviceRule& rule, std::size_t index) {
    Matcher m;
    m.allow = rule.allow;
    if (rule.type == "c")
        m.type = BPF_DEVCG_DEV_CHAR;
    else if (rule.type == "b")
        m.type = BPF_DEVCG_DEV_BLOCK;
    else if (!rule.type.empty() && rule.type != "a")
        return fail_msg(field(index, "type") + ": unknown device type \"" + rule.type + "\" (want a, c or b)");
    m.major = TRY(parse_number(rule.major, index, "major"));
    m.minor = TRY(parse_number(rule.minor, index, "minor"));
    for (char c : rule.access.empty() ? std::string("rwm") : rule.access) {
        if (c == 'r')
            m.access |= BPF_DEVCG_ACC_READ;
        else if (c == 'w')
            m.access |= BPF_DEVCG_ACC_WRITE;
        else if (c == 'm')
            m.access |= BPF_DEVCG_ACC_MKNOD;
        else
            return fail_msg(field(index, "access") + ": \"" + rule.access + "\" is not a combination of r, w, m");
    }
    return m;
}

// Rules next to each other in the walk with the same type, decision and access form a group: they act alike, so
// which of them matched (and their order) does not matter, and the group tests whether any matches, then acts once.
// The default devices are one group (c 1:3, 1:5 ... 136:*), so a list costs few instructions more than the
// spec's own rules. The verifier's time grows with the instructions it walks.
bool same_group(const Matcher& a, const Matcher& b) {
    return a.type == b.type && a.allow == b.allow && a.access == b.access;
}

// Jumps to patch once their target is known: each entry is the index of a jump instruction.
void land(std::vector<bpf_insn>& out, const std::vector<std::size_t>& jumps) {
    for (std::size_t at : jumps) out[at].off = static_cast<std::int16_t>(out.size() - at - 1);
}

// The minors of one major: a JSET of a mask shifted by the minor for those below 32 (one test for c 1:3, 1:5,
// 1:7, 1:8, 1:9), a comparison each for the others.
void emit_minors(const std::vector<std::uint32_t>& minors, std::vector<bpf_insn>& out, std::vector<std::size_t>& to_action) {
    std::uint32_t mask = 0;
    std::vector<std::uint32_t> others;
    for (std::uint32_t minor : minors) {
        if (minor < 32) mask |= std::uint32_t{1} << minor;
        else others.push_back(minor);
    }
    if (mask != 0 && (mask & (mask - 1)) == 0) {
        others.push_back(static_cast<std::uint32_t>(__builtin_ctz(mask)));  // one: a comparison is shorter
        mask = 0;
    }
    if (mask != 0) {
        const std::size_t too_large = out.size();
        out.push_back(jump32_if(BPF_JGT, minor_reg, 31, 0));
        out.push_back(insn::make(BPF_ALU | BPF_MOV | BPF_K, mask_reg, 0, 0, static_cast<std::int32_t>(mask)));
        out.push_back(insn::make(BPF_ALU | BPF_RSH | BPF_X, mask_reg, minor_reg, 0, 0));
        to_action.push_back(out.size());
        out.push_back(jump32_if(BPF_JSET, mask_reg, 1, 0));
        land(out, {too_large});
    }
    for (std::uint32_t minor : others) {
        to_action.push_back(out.size());
        out.push_back(jump32_if(BPF_JEQ, minor_reg, minor, 0));
    }
}

// One group: past it unless the type matches and some member's major and minor do. Then it decides the
// requested bits of its access that no later rule decided (undecided_reg): a deny returns 0 if there is one;
// an allow takes them off, and returns 1 once none is left. The registers it compares are loaded again from
// the context at its start: the verifier no longer knows them from an earlier group's comparisons, and the
// states at each group's start prune one another.
void emit_group(const std::vector<const Matcher*>& members, std::vector<bpf_insn>& out) {
    const Matcher& head = *members.front();
    std::vector<std::size_t> to_action, past;
    if (head.type) {
        out.push_back(load_word(type_reg, 0));
        out.push_back(insn::make(BPF_ALU | BPF_AND | BPF_K, type_reg, 0, 0, 0xffff));
        past.push_back(out.size());
        out.push_back(jump32_if(BPF_JNE, type_reg, *head.type, 0));
    }
    // A member for every device of the type: no other member needs a test (nor could the code after one run).
    const bool every_device = std::any_of(members.begin(), members.end(), [](const Matcher* m) { return !m->major && !m->minor; });
    if (!every_device) {
        out.push_back(load_word(major_reg, 4));
        out.push_back(load_word(minor_reg, 8));
    }
    // The members by major, in the order they come (a wildcard major is a key of its own).
    std::vector<std::optional<std::uint32_t>> majors;
    for (const Matcher* m : members)
        if (!every_device && std::find(majors.begin(), majors.end(), m->major) == majors.end()) majors.push_back(m->major);
    for (const std::optional<std::uint32_t>& major : majors) {
        bool any_minor = false;
        std::vector<std::uint32_t> minors;
        for (const Matcher* m : members) {
            if (m->major != major) continue;
            if (m->minor) minors.push_back(*m->minor);
            else any_minor = true;
        }
        if (!major) {
            emit_minors(minors, out, to_action);
        } else if (any_minor) {
            to_action.push_back(out.size());
            out.push_back(jump32_if(BPF_JEQ, major_reg, *major, 0));
        } else {
            const std::size_t other_major = out.size();
            out.push_back(jump32_if(BPF_JNE, major_reg, *major, 0));
            emit_minors(minors, out, to_action);
            land(out, {other_major});
        }
    }
    if (!every_device) {
        past.push_back(out.size());
        out.push_back(jump(0));  // no member matched
    }
    land(out, to_action);
    if (head.allow) {
        out.push_back(insn::make(BPF_ALU | BPF_AND | BPF_K, undecided_reg, 0, 0, static_cast<std::int32_t>(~head.access & 7)));
        out.push_back(jump32_if(BPF_JNE, undecided_reg, 0, 2));
        emit_return(out, 1);
    } else {
        out.push_back(jump32_if(BPF_JSET, undecided_reg, head.access, 1));
        out.push_back(jump(2));
        emit_return(out, 0);
    }
    land(out, past);
}

spec::DeviceRule allow(const char* type, std::optional<std::int64_t> major, std::optional<std::int64_t> minor,
                      const char* access = "rwm") {
    return spec::DeviceRule{true, type, major, minor, access};
}

}  // namespace

Result<std::vector<bpf_insn>> compile_device_program(const std::vector<spec::DeviceRule>& rules) {
    std::vector<Matcher> matchers;
    for (std::size_t i = 0; i < rules.size(); ++i) matchers.push_back(TRY(parse_rule(rules[i], i)));

    // For each requested access bit the last rule that matches the device and names the bit decides; a bit no
    // rule decides is allowed. So the rules are walked from the last one back, in one pass for all bits, and
    // nothing before a rule that matches every device with every bit is reachable. Without a deny nothing can
    // be refused: the program allows everything. (BPF_PROG_LOAD was the most expensive system call of a `husk
    // run`, its time growing with the instructions the verifier walks: for the busybox bundle's list and the
    // default devices, one pass per access bit and a test per rule were 262 instructions and 0.53 ms, one pass
    // with a test per rule 134 and 0.29 ms, one pass with groups 49 and 0.18 ms; strace -T, median of 15.)
    std::vector<const Matcher*> relevant;
    bool any_deny = false;
    for (auto it = matchers.rbegin(); it != matchers.rend(); ++it) {
        if (it->access == 0) continue;
        relevant.push_back(&*it);
        any_deny |= !it->allow;
        if (it->matches_everything() && it->access == (BPF_DEVCG_ACC_READ | BPF_DEVCG_ACC_WRITE | BPF_DEVCG_ACC_MKNOD))
            break;
    }
    std::vector<bpf_insn> program;
    program.push_back(load_word(type_reg, 0));
    program.push_back(insn::make(BPF_ALU | BPF_AND | BPF_K, type_reg, 0, 0, 0xffff));
    program.push_back(load_word(undecided_reg, 0));
    program.push_back(insn::make(BPF_ALU | BPF_RSH | BPF_K, undecided_reg, 0, 0, 16));
    program.push_back(load_word(major_reg, 4));
    program.push_back(load_word(minor_reg, 8));
    if (any_deny) {
        for (std::size_t first = 0; first < relevant.size();) {
            std::size_t end = first + 1;
            while (end < relevant.size() && same_group(*relevant[first], *relevant[end])) ++end;
            emit_group({relevant.begin() + static_cast<std::ptrdiff_t>(first), relevant.begin() + static_cast<std::ptrdiff_t>(end)}, program);
            first = end;
        }
    }
    if (program.size() > static_cast<std::size_t>(std::numeric_limits<std::int16_t>::max()))
        return fail_msg("linux.resources.devices: too many rules for one device program");
    emit_return(program, 1);  // every requested bit no rule decided is allowed
    return program;
}

Result<void> attach_device_program(int cgroup_fd, const std::vector<bpf_insn>& program, const std::string& where) {
    return load_and_attach(cgroup_fd, device_program_kind, program, where);
}

// The rules the container gets after the spec's own, as runc and crun append them: mknod of any node, the
// devices every container has (null, zero, full, random, urandom, tty, console, ptmx, pts/*, net/tun), and
// each of linux.devices. The spec's list usually starts with "deny all"; the last matching rule wins.
std::vector<spec::DeviceRule> with_default_devices(const std::vector<spec::DeviceRule>& rules, const spec::Spec& spec) {
    std::vector<spec::DeviceRule> all = rules;
    all.push_back(allow("c", std::nullopt, std::nullopt, "m"));
    all.push_back(allow("b", std::nullopt, std::nullopt, "m"));
    for (auto [major, minor] : {std::pair{1, 3}, {1, 5}, {1, 7}, {1, 8}, {1, 9}, {5, 0}, {5, 1}, {5, 2}, {10, 200}})
        all.push_back(allow("c", major, minor));
    all.push_back(allow("c", 136, std::nullopt));
    if (spec.linux) {
        for (const auto& device : spec.linux->devices) {
            if (device.type == "c" || device.type == "u") all.push_back(allow("c", device.major, device.minor));
            else if (device.type == "b") all.push_back(allow("b", device.major, device.minor));
        }
    }
    return all;
}

namespace {

// The ids of the BPF_CGROUP_DEVICE programs attached to the cgroup itself (not inherited ones).
Result<std::vector<std::uint32_t>> attached_device_programs(int cgroup_fd, const std::string& where) {
    std::vector<std::uint32_t> ids(16);
    for (;;) {
        bpf_attr query{};
        query.query.target_fd = static_cast<std::uint32_t>(cgroup_fd);
        query.query.attach_type = BPF_CGROUP_DEVICE;
        query.query.prog_ids = reinterpret_cast<std::uintptr_t>(ids.data());
        query.query.prog_cnt = static_cast<std::uint32_t>(ids.size());
        if (bpf(BPF_PROG_QUERY, query) == 0) {
            ids.resize(query.query.prog_cnt);
            return ids;
        }
        if (errno != ENOSPC) return fail_sys(errno, "query device programs of cgroup", where);
        ids.resize(query.query.prog_cnt);  // the kernel told us how many there are
    }
}

// Detaches program `id` from the cgroup if it is one of husk's (by name). Gone already is fine.
Result<void> detach_if_husk(int cgroup_fd, std::uint32_t id, const std::string& where) {
    bpf_attr get{};
    get.prog_id = id;
    UniqueFd program(bpf(BPF_PROG_GET_FD_BY_ID, get));
    if (!program)
        return errno == ENOENT ? Result<void>() : fail_sys(errno, "open device program " + std::to_string(id) + " of", where);
    bpf_prog_info info{};
    bpf_attr about{};
    about.info.bpf_fd = static_cast<std::uint32_t>(program.get());
    about.info.info_len = sizeof info;
    about.info.info = reinterpret_cast<std::uintptr_t>(&info);
    if (bpf(BPF_OBJ_GET_INFO_BY_FD, about) != 0) return fail_sys(errno, "inspect device program " + std::to_string(id) + " of", where);
    if (std::strncmp(info.name, device_program_name, sizeof info.name) != 0) return {};
    bpf_attr detach{};
    detach.target_fd = static_cast<std::uint32_t>(cgroup_fd);
    detach.attach_bpf_fd = static_cast<std::uint32_t>(program.get());
    detach.attach_type = BPF_CGROUP_DEVICE;
    if (bpf(BPF_PROG_DETACH, detach) != 0 && errno != ENOENT)
        return fail_sys(errno, "detach the previous device program from cgroup", where);
    return {};
}

}  // namespace

Result<void> replace_device_program(int cgroup_fd, const std::vector<bpf_insn>& program, const std::string& where) {
    std::vector<std::uint32_t> before = TRY(attached_device_programs(cgroup_fd, where));
    // New first, old after: in between both apply (a device must pass every program), so there is no moment
    // without a filter.
    TRY(attach_device_program(cgroup_fd, program, where));
    for (std::uint32_t id : before) TRY(detach_if_husk(cgroup_fd, id, where));
    return {};
}

}  // namespace husk::cgroup
