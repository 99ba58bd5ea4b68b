#include "cgroup/bpf_program.hpp"

#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace husk::cgroup {
namespace {

// The verifier's last line says why it refused the program; worth more than EACCES alone.
std::string last_line(const std::string& log) {
    std::size_t end = log.find_last_not_of("\n\0 ");
    if (end == std::string::npos) return {};
    std::size_t newline = log.rfind('\n', end);
    std::size_t start = newline == std::string::npos ? 0 : newline + 1;
    return log.substr(start, end - start + 1);
}

}  // namespace

int bpf(int command, bpf_attr& attr) { return static_cast<int>(::syscall(SYS_bpf, command, &attr, sizeof attr)); }

Result<UniqueFd> load_program(const ProgramKind& kind, const std::vector<bpf_insn>& compiled, const std::string& where,
                              const std::vector<int>& maps) {
    std::vector<bpf_insn> program = compiled;
    for (bpf_insn& i : program) {
        if (i.code != (BPF_LD | BPF_DW | BPF_IMM) || i.src_reg != BPF_PSEUDO_MAP_FD) continue;
        if (i.imm < 0 || static_cast<std::size_t>(i.imm) >= maps.size())
            return fail_msg(std::string(kind.what) + ": refers to map " + std::to_string(i.imm) + ", which is not there");
        i.imm = maps[static_cast<std::size_t>(i.imm)];
    }
    // No GPL-only helper is called, so the license string is ours.
    static const char license[] = "Apache-2.0";
    std::string log;
    bpf_attr load{};
    load.prog_type = kind.type;
    load.expected_attach_type = kind.attach_type;
    load.insns = reinterpret_cast<std::uintptr_t>(program.data());
    load.insn_cnt = static_cast<std::uint32_t>(program.size());
    load.license = reinterpret_cast<std::uintptr_t>(license);
    std::strncpy(load.prog_name, kind.name, sizeof load.prog_name - 1);
    int fd = bpf(BPF_PROG_LOAD, load);
    if (fd < 0 && (errno == EINVAL || errno == EACCES)) {
        log.assign(64 * 1024, '\0');  // load again with the verifier log to say why
        load.log_level = 1;
        load.log_buf = reinterpret_cast<std::uintptr_t>(log.data());
        load.log_size = static_cast<std::uint32_t>(log.size());
        fd = bpf(BPF_PROG_LOAD, load);
    }
    if (fd < 0) {
        int err = errno;
        std::string why = last_line(log.c_str());
        std::string op = std::string("load ") + kind.what;
        return fail_sys(err, why.empty() ? op : op + " [verifier: " + why + "]", where);
    }
    return UniqueFd(fd);  // the kernel returns BPF fds with O_CLOEXEC set
}

Result<void> attach_program(int cgroup_fd, int program_fd, const ProgramKind& kind, const std::string& where) {
    bpf_attr attach{};
    attach.target_fd = static_cast<std::uint32_t>(cgroup_fd);
    attach.attach_bpf_fd = static_cast<std::uint32_t>(program_fd);
    attach.attach_type = kind.attach_type;
    attach.attach_flags = BPF_F_ALLOW_MULTI;
    if (bpf(BPF_PROG_ATTACH, attach) != 0) return fail_sys(errno, std::string("attach ") + kind.what + " to cgroup", where);
    return {};
}

Result<void> load_and_attach(int cgroup_fd, const ProgramKind& kind, const std::vector<bpf_insn>& program,
                             const std::string& where) {
    UniqueFd fd = TRY(load_program(kind, program, where));
    return attach_program(cgroup_fd, fd.get(), kind, where);
}

}  // namespace husk::cgroup
