#include "cgroup/net_filter.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <limits>
#include <string_view>

#include "cgroup/bpf_program.hpp"

namespace husk::cgroup {
namespace {

using spec::NetAllowEntry;

// Registers: r6 the context (helper calls clobber r1-r5), r7 the destination port, r8 the IPv4 address,
// r2-r5 the IPv6 address's words, r9 scratch.
constexpr std::uint8_t ctx = BPF_REG_6, port_reg = BPF_REG_7, ip4_reg = BPF_REG_8, scratch = BPF_REG_9;
constexpr std::uint8_t ip6_reg[4] = {BPF_REG_2, BPF_REG_3, BPF_REG_4, BPF_REG_5};

// A program under construction with forward jumps to labels, patched when the label is placed. Code no path
// reaches (after an unconditional jump or exit, up to a label something jumps to) is left out: the verifier
// refuses a program with unreachable instructions, and an entry matching everything makes the rest so.
class Assembler {
public:
    int new_label() {
        labels_.push_back(-1);
        return static_cast<int>(labels_.size() - 1);
    }
    void place(int label) {
        labels_[static_cast<std::size_t>(label)] = static_cast<long>(code_.size());
        if (used(label)) dead_ = false;
    }
    void emit(const bpf_insn& i) {
        if (dead_) return;
        code_.push_back(i);
        if (i.code == (BPF_JMP | BPF_JA) || i.code == (BPF_JMP | BPF_EXIT)) dead_ = true;
    }
    // A jump whose offset goes to `label`: a conditional 32-bit compare, or `ja` when op is BPF_JA.
    void jump_to(std::uint8_t op, std::uint8_t reg, std::uint32_t value, int label) {
        jump(op == BPF_JA ? insn::jump(0) : insn::jump32_if(op, reg, value, 0), label);
    }
    // A 64-bit register compare (BPF_JLT, BPF_JNE, ...) jumping to `label`.
    void jump_if_reg(std::uint8_t op, std::uint8_t dst, std::uint8_t src, int label) {
        jump(insn::make(BPF_JMP | op | BPF_X, dst, src, 0, 0), label);
    }
    void jump_if_zero(std::uint8_t reg, int label) { jump(insn::make(BPF_JMP | BPF_JEQ | BPF_K, reg, 0, 0, 0), label); }
    Result<std::vector<bpf_insn>> finish() {
        for (const Fixup& f : fixups_) {
            long target = labels_[static_cast<std::size_t>(f.label)];
            long offset = target - static_cast<long>(f.at) - 1;
            if (target < 0 || offset < 0 || offset > std::numeric_limits<std::int16_t>::max())
                return fail_msg("network allow-list: too many entries for one program");
            code_[f.at].off = static_cast<std::int16_t>(offset);
        }
        return std::move(code_);
    }

private:
    struct Fixup {
        std::size_t at;
        int label;
    };
    bool used(int label) const {
        for (const Fixup& f : fixups_)
            if (f.label == label) return true;
        return false;
    }
    void jump(const bpf_insn& i, int label) {
        if (dead_) return;
        fixups_.push_back({code_.size(), label});
        emit(i);
    }
    std::vector<bpf_insn> code_;
    std::vector<long> labels_;
    std::vector<Fixup> fixups_;
    bool dead_ = false;
};

// 4 bytes of an address (network order) as the u32 the program loads from the context: same bytes, so the
// comparison holds on either endianness.
std::uint32_t word_of(const std::uint8_t* bytes) {
    std::uint32_t word;
    std::memcpy(&word, bytes, sizeof word);
    return word;
}

// The mask of `prefix` leading bits of the 32-bit word `index`, in the same representation.
std::uint32_t mask_word(unsigned prefix, unsigned index) {
    std::uint8_t bytes[4] = {};
    for (unsigned bit = 0; bit < 32; ++bit)
        if (index * 32 + bit < prefix) bytes[bit / 8] |= static_cast<std::uint8_t>(0x80u >> (bit % 8));
    return word_of(bytes);
}

// The port as user_port holds it: network byte order in the low 16 bits.
std::uint32_t port_value(std::uint16_t port) { return htons(port); }

// Jumps to `allowed` when the address in `words` (one register per 32-bit word) matches the entry.
void emit_entry(Assembler& a, const NetAllowEntry& entry, const std::uint8_t* words, int allowed) {
    int next = a.new_label();
    if (entry.port) a.jump_to(BPF_JNE, port_reg, port_value(*entry.port), next);
    const unsigned word_count = entry.family == NetAllowEntry::Family::ipv4 ? 1 : 4;
    for (unsigned w = 0; w < word_count && w * 32 < entry.prefix; ++w) {
        std::uint32_t mask = mask_word(entry.prefix, w);
        std::uint32_t net = word_of(entry.address.data() + 4 * w);
        if (mask == 0xffffffffu) {
            a.jump_to(BPF_JNE, words[w], net, next);
        } else {
            a.emit(insn::make(BPF_ALU | BPF_MOV | BPF_X, scratch, words[w], 0, 0));
            a.emit(insn::make(BPF_ALU | BPF_AND | BPF_K, scratch, 0, 0, static_cast<std::int32_t>(mask)));
            a.jump_to(BPF_JNE, scratch, net, next);
        }
    }
    a.jump_to(BPF_JA, 0, 0, allowed);
    a.place(next);
}

void emit_list(Assembler& a, const std::optional<spec::NetAllow>& allow, NetAllowEntry::Family family,
               const std::uint8_t* words, int allowed) {
    if (!allow) {  // no allow-list: a budget alone
        a.jump_to(BPF_JA, 0, 0, allowed);
        return;
    }
    for (const NetAllowEntry& entry : allow->entries)
        if (entry.family == family) emit_entry(a, entry, words, allowed);
}

enum class Family { ipv4, ipv6 };

// dst = the map at `index` of the maps passed to load_program (BPF_PSEUDO_MAP_FD, patched there). Two slots.
void emit_map(Assembler& a, std::uint8_t dst, std::int32_t index) {
    a.emit(insn::make(BPF_LD | BPF_DW | BPF_IMM, dst, BPF_PSEUDO_MAP_FD, 0, index));
    a.emit(insn::make(0, 0, 0, 0, 0));
}

// dst = value, all 64 bits. Two slots.
void emit_load64(Assembler& a, std::uint8_t dst, std::uint64_t value) {
    a.emit(insn::make(BPF_LD | BPF_DW | BPF_IMM, dst, 0, 0, static_cast<std::int32_t>(value & 0xffffffffu)));
    a.emit(insn::make(0, 0, 0, 0, static_cast<std::int32_t>(value >> 32)));
}

// r0 = the address of the counter map's u64 at `slot` (map_lookup_elem; 0 if there is none). Clobbers r1-r5.
void emit_counter_lookup(Assembler& a, std::uint32_t slot) {
    emit_map(a, BPF_REG_1, net_counter_map);
    a.emit(insn::move_reg(BPF_REG_2, BPF_REG_10));
    a.emit(insn::make(BPF_ALU64 | BPF_ADD | BPF_K, BPF_REG_2, 0, 0, -4));
    a.emit(insn::make(BPF_ST | BPF_MEM | BPF_W, BPF_REG_10, 0, -4, static_cast<std::int32_t>(slot)));
    a.emit(insn::make(BPF_JMP | BPF_CALL, 0, 0, 0, BPF_FUNC_map_lookup_elem));
}

// An operation the allow-list let through: count it (atomic fetch-and-add on the counter map's ops slot) and
// let it pass while the count before it was under the budget; the first one past the budget also writes the
// count to the events ring buffer, which wakes the monitor. Without a budget, every one passes.
void emit_count(Assembler& a, std::optional<std::uint64_t> budget, bool events, int denied) {
    int pass = a.new_label();
    emit_counter_lookup(a, net_ops_slot);
    a.jump_if_zero(BPF_REG_0, denied);  // cannot happen for an array's key 0; fail closed all the same
    a.emit(insn::move(BPF_REG_1, 1));
    a.emit(insn::make(BPF_STX | BPF_ATOMIC | BPF_DW, BPF_REG_0, BPF_REG_1, 0, BPF_ADD | BPF_FETCH));
    emit_load64(a, BPF_REG_2, budget.value_or(std::numeric_limits<std::uint64_t>::max()));
    a.jump_if_reg(BPF_JLT, BPF_REG_1, BPF_REG_2, pass);  // count before this one < budget
    if (events) {
        a.jump_if_reg(BPF_JNE, BPF_REG_1, BPF_REG_2, denied);  // only the first one past the budget tells
        a.emit(insn::make(BPF_STX | BPF_MEM | BPF_DW, BPF_REG_10, BPF_REG_1, -16, 0));
        emit_map(a, BPF_REG_1, net_events_map);
        a.emit(insn::move_reg(BPF_REG_2, BPF_REG_10));
        a.emit(insn::make(BPF_ALU64 | BPF_ADD | BPF_K, BPF_REG_2, 0, 0, -16));
        a.emit(insn::move(BPF_REG_3, 8));
        a.emit(insn::move(BPF_REG_4, 0));
        a.emit(insn::make(BPF_JMP | BPF_CALL, 0, 0, 0, BPF_FUNC_ringbuf_output));
    }
    a.jump_to(BPF_JA, 0, 0, denied);
    a.place(pass);
    a.emit(insn::move(BPF_REG_0, 1));
    a.emit(insn::exit());
}

// An operation refused: one more in the counter map's denied slot (an atomic add), which the verdict reports as
// the factor `network-denied`. A failed lookup (cannot happen for an array) skips the count, never the refusal.
void emit_count_denied(Assembler& a) {
    int counted = a.new_label();
    emit_counter_lookup(a, net_denied_slot);
    a.jump_if_zero(BPF_REG_0, counted);
    a.emit(insn::move(BPF_REG_1, 1));
    a.emit(insn::make(BPF_STX | BPF_ATOMIC | BPF_DW, BPF_REG_0, BPF_REG_1, 0, BPF_ADD));
    a.place(counted);
}

Result<std::vector<bpf_insn>> compile_sock_addr(const std::optional<spec::NetAllow>& allow, Family family,
                                                std::optional<std::uint64_t> budget, bool events) {
    Assembler a;
    int allowed = a.new_label(), denied = a.new_label();
    a.emit(insn::move_reg(ctx, BPF_REG_1));
    a.emit(insn::load_word(port_reg, ctx, offsetof(bpf_sock_addr, user_port)));
    if (family == Family::ipv4) {
        a.emit(insn::load_word(ip4_reg, ctx, offsetof(bpf_sock_addr, user_ip4)));
        emit_list(a, allow, NetAllowEntry::Family::ipv4, &ip4_reg, allowed);
    } else {
        for (unsigned w = 0; w < 4; ++w)
            a.emit(insn::load_word(ip6_reg[w], ctx, static_cast<std::int16_t>(offsetof(bpf_sock_addr, user_ip6) + 4 * w)));
        // ::ffff:a.b.c.d goes out as IPv4 (tcp_v6_connect and udpv6_sendmsg hand it to the IPv4 code, past the
        // IPv4 connect hook): judged by the IPv4 entries, never by the IPv6 ones (::/0 must not open IPv4).
        int not_mapped = a.new_label();
        a.jump_to(BPF_JNE, ip6_reg[0], 0, not_mapped);
        a.jump_to(BPF_JNE, ip6_reg[1], 0, not_mapped);
        a.jump_to(BPF_JNE, ip6_reg[2], htonl(0xffff), not_mapped);
        a.emit(insn::make(BPF_ALU | BPF_MOV | BPF_X, ip4_reg, ip6_reg[3], 0, 0));
        emit_list(a, allow, NetAllowEntry::Family::ipv4, &ip4_reg, allowed);
        a.jump_to(BPF_JA, 0, 0, denied);
        a.place(not_mapped);
        emit_list(a, allow, NetAllowEntry::Family::ipv6, ip6_reg, allowed);
    }
    a.jump_to(BPF_JA, 0, 0, denied);  // no entry matched
    a.place(allowed);
    emit_count(a, budget, events, denied);
    a.place(denied);
    emit_count_denied(a);
    a.emit(insn::move(BPF_REG_0, 0));
    a.emit(insn::exit());
    return a.finish();
}

// socket(2) in AF_INET/AF_INET6 (the only families this hook sees): TCP streams and UDP datagrams only.
Result<std::vector<bpf_insn>> compile_sock_create() {
    Assembler a;
    int allowed = a.new_label(), denied = a.new_label(), dgram = a.new_label();
    constexpr std::uint8_t type = BPF_REG_2, protocol = BPF_REG_3;
    a.emit(insn::load_word(type, BPF_REG_1, offsetof(bpf_sock, type)));
    a.emit(insn::load_word(protocol, BPF_REG_1, offsetof(bpf_sock, protocol)));
    a.jump_to(BPF_JNE, type, SOCK_STREAM, dgram);
    a.jump_to(BPF_JEQ, protocol, IPPROTO_TCP, allowed);
    a.jump_to(BPF_JA, 0, 0, denied);
    a.place(dgram);
    a.jump_to(BPF_JNE, type, SOCK_DGRAM, denied);
    a.jump_to(BPF_JEQ, protocol, IPPROTO_UDP, allowed);
    a.place(denied);
    a.emit(insn::move(BPF_REG_0, 0));
    a.emit(insn::exit());
    a.place(allowed);
    a.emit(insn::move(BPF_REG_0, 1));
    a.emit(insn::exit());
    return a.finish();
}

struct Hook {
    ProgramKind kind;
    std::vector<bpf_insn> NetPrograms::*program;
};
const Hook hooks[] = {
    {{BPF_PROG_TYPE_CGROUP_SOCK, BPF_CGROUP_INET_SOCK_CREATE, "husk_net_sock", "network policy program (INET_SOCK_CREATE)"},
     &NetPrograms::sock_create},
    {{BPF_PROG_TYPE_CGROUP_SOCK_ADDR, BPF_CGROUP_INET4_CONNECT, "husk_net_conn4", "network policy program (INET4_CONNECT)"},
     &NetPrograms::connect4},
    {{BPF_PROG_TYPE_CGROUP_SOCK_ADDR, BPF_CGROUP_INET6_CONNECT, "husk_net_conn6", "network policy program (INET6_CONNECT)"},
     &NetPrograms::connect6},
    {{BPF_PROG_TYPE_CGROUP_SOCK_ADDR, BPF_CGROUP_UDP4_SENDMSG, "husk_net_send4", "network policy program (UDP4_SENDMSG)"},
     &NetPrograms::sendmsg4},
    {{BPF_PROG_TYPE_CGROUP_SOCK_ADDR, BPF_CGROUP_UDP6_SENDMSG, "husk_net_send6", "network policy program (UDP6_SENDMSG)"},
     &NetPrograms::sendmsg6},
};

}  // namespace

Result<NetPrograms> compile_net_programs(const std::optional<spec::NetAllow>& allow, std::optional<std::uint64_t> budget,
                                         BudgetEvents events) {
    NetPrograms programs;
    if (!allow && !budget) return programs;
    programs.budget = budget;
    programs.events = budget && events == BudgetEvents::ring;
    programs.connect4 = TRY(compile_sock_addr(allow, Family::ipv4, budget, programs.events));
    programs.connect6 = TRY(compile_sock_addr(allow, Family::ipv6, budget, programs.events));
    programs.sendmsg4 = programs.connect4;
    programs.sendmsg6 = programs.connect6;
    programs.sock_create = TRY(compile_sock_create());
    return programs;
}

Result<void> check_net_policy_capabilities(const spec::Process& process, const std::string& source) {
    const auto& bounding = process.capabilities.bounding;
    if (!bounding) return {};
    for (const char* cap : {"CAP_NET_RAW", "CAP_SYS_ADMIN"}) {
        if (std::find(bounding->begin(), bounding->end(), cap) == bounding->end()) continue;
        const char* why = std::string_view(cap) == "CAP_NET_RAW"
                              ? "AF_PACKET sockets pass none of the hooks that enforce the policy"
                              : "it could detach the policy's programs from the cgroup";
        return fail_msg(source + ".capabilities.bounding has " + cap + ": a network policy (run.husk.net-allow, "
                        "run.husk.net-ops) cannot be enforced, as " + why + " (drop " + cap + ")");
    }
    return {};
}

Result<NetMaps> attach_net_programs(int cgroup_fd, const NetPrograms& programs, const std::string& where) {
    if (programs.empty()) return NetMaps{};
    NetMaps maps = TRY(create_net_maps(programs.events, where));
    std::vector<int> map_fds = {maps.counter.get()};
    if (maps.events) map_fds.push_back(maps.events.get());
    for (const Hook& hook : hooks) {
        UniqueFd program = TRY(load_program(hook.kind, programs.*hook.program, where, map_fds));
        TRY(attach_program(cgroup_fd, program.get(), hook.kind, where));
    }
    return maps;
}

}  // namespace husk::cgroup
