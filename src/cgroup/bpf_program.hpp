// Loading and attaching husk's cgroup BPF programs (the device filter, the network policy), and the few
// instruction builders they are written with. Programs are raw instructions built in the parent; no object
// files, no libbpf.
#pragma once

#include <linux/bpf.h>

#include <cstdint>
#include <string>
#include <vector>

#include "husk/error.hpp"
#include "husk/unique_fd.hpp"

namespace husk::cgroup {

// bpf(2).
int bpf(int command, bpf_attr& attr);

// What a program is, for the kernel and for error messages.
struct ProgramKind {
    bpf_prog_type type;
    bpf_attach_type attach_type;  // also the program's expected_attach_type
    const char* name;             // ≤ 15 characters: tells husk's programs apart from others on the cgroup
    const char* what;             // "device program (BPF_PROG_TYPE_CGROUP_DEVICE)"
};

// BPF_PROG_LOAD; on a verifier refusal the error carries the verifier's last line. `where` names the cgroup.
// A 64-bit immediate load marked BPF_PSEUDO_MAP_FD holds an index into `maps`, replaced by that map's fd.
Result<UniqueFd> load_program(const ProgramKind& kind, const std::vector<bpf_insn>& program, const std::string& where,
                              const std::vector<int>& maps = {});

// BPF_PROG_ATTACH with BPF_F_ALLOW_MULTI, so the programs of ancestors keep applying too. The attachment
// holds the program: the fd may close afterwards.
Result<void> attach_program(int cgroup_fd, int program_fd, const ProgramKind& kind, const std::string& where);

// load_program, then attach_program.
Result<void> load_and_attach(int cgroup_fd, const ProgramKind& kind, const std::vector<bpf_insn>& program,
                             const std::string& where);

namespace insn {

inline bpf_insn make(std::uint8_t code, std::uint8_t dst, std::uint8_t src, std::int16_t off, std::int32_t imm) {
    bpf_insn i{};
    i.code = code;
    i.dst_reg = dst & 0xf;
    i.src_reg = src & 0xf;
    i.off = off;
    i.imm = imm;
    return i;
}
// dst = *(u32 *)(src + off)
inline bpf_insn load_word(std::uint8_t dst, std::uint8_t src, std::int16_t off) {
    return make(BPF_LDX | BPF_MEM | BPF_W, dst, src, off, 0);
}
// dst = value (64-bit, sign-extended imm)
inline bpf_insn move(std::uint8_t dst, std::int32_t value) { return make(BPF_ALU64 | BPF_MOV | BPF_K, dst, 0, 0, value); }
inline bpf_insn move_reg(std::uint8_t dst, std::uint8_t src) { return make(BPF_ALU64 | BPF_MOV | BPF_X, dst, src, 0, 0); }
// 32-bit compare against an immediate: the context's fields are u32, and a 64-bit compare would sign-extend.
inline bpf_insn jump32_if(std::uint8_t op, std::uint8_t reg, std::uint32_t value, std::int16_t off) {
    return make(BPF_JMP32 | op | BPF_K, reg, 0, off, static_cast<std::int32_t>(value));
}
inline bpf_insn jump(std::int16_t off) { return make(BPF_JMP | BPF_JA, 0, 0, off, 0); }
inline bpf_insn exit() { return make(BPF_JMP | BPF_EXIT, 0, 0, 0, 0); }
// r0 = value; exit. Two instructions.
inline void emit_return(std::vector<bpf_insn>& out, int value) {
    out.push_back(move(BPF_REG_0, value));
    out.push_back(exit());
}

}  // namespace insn

}  // namespace husk::cgroup
