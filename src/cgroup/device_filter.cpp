#include "cgroup/device_filter.hpp"

#include <sys/syscall.h>
#include <unistd.h>

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
                       minor_reg = BPF_REG_5;

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

// The registers a rule compares, loaded again from the context at the start of the rule. The values are the
// same as the prologue's, but the verifier no longer knows them from an earlier comparison: it then needs no
// precision backtracking for comparisons whose outcome it knew, and the states at each rule's start (the
// registers dead until reloaded) prune one another.
void emit_reload(const Matcher& m, std::vector<bpf_insn>& out) {
    if (m.type) {
        out.push_back(load_word(type_reg, 0));
        out.push_back(insn::make(BPF_ALU | BPF_AND | BPF_K, type_reg, 0, 0, 0xffff));
    }
    if (m.major) out.push_back(load_word(major_reg, 4));
    if (m.minor) out.push_back(load_word(minor_reg, 8));
}

// One rule: fall through to the next rule unless type, major and minor all match. Then it decides the requested
// bits of its access that no later rule decided (undecided_reg): a deny returns 0 if there is one; an allow
// takes them off, and returns 1 once none is left.
void emit_rule(const Matcher& m, std::vector<bpf_insn>& out) {
    emit_reload(m, out);
    std::vector<bpf_insn> conditions;
    if (m.type) conditions.push_back(jump32_if(BPF_JNE, type_reg, *m.type, 0));
    if (m.major) conditions.push_back(jump32_if(BPF_JNE, major_reg, *m.major, 0));
    if (m.minor) conditions.push_back(jump32_if(BPF_JNE, minor_reg, *m.minor, 0));
    // deny: if (undecided & access) return 0                          (4 instructions)
    // allow: undecided &= ~access; if (undecided == 0) return 1    (4 instructions)
    const std::size_t action_length = 4;
    for (std::size_t i = 0; i < conditions.size(); ++i) {
        conditions[i].off = static_cast<std::int16_t>(conditions.size() - i - 1 + action_length);
        out.push_back(conditions[i]);
    }
    if (m.allow) {
        out.push_back(insn::make(BPF_ALU | BPF_AND | BPF_K, undecided_reg, 0, 0, static_cast<std::int32_t>(~m.access & 7)));
        out.push_back(jump32_if(BPF_JNE, undecided_reg, 0, 2));
        emit_return(out, 1);
    } else {
        out.push_back(jump32_if(BPF_JSET, undecided_reg, m.access, 1));
        out.push_back(jump(2));
        emit_return(out, 0);
    }
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
    // be refused: the program allows everything. (The verifier's time grows with the instructions: for the
    // busybox bundle's list and the default devices, one pass per access bit was 262 instructions and 0.53 ms
    // of BPF_PROG_LOAD, the most expensive system call of a `husk run`; one pass for all bits is 134 and 0.28 ms.)
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
    if (any_deny)
        for (const Matcher* m : relevant) emit_rule(*m, program);
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
