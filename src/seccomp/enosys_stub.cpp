// Layout (all conditional jumps are short; far targets are reached with `ja`, whose offset is 32-bit):
//
//   ld  seccomp_data.arch
//   jeq ARCH_1, 0, 1 ; ja section_1        (one pair per arch with a limit)
//   ...
//   ja  filter                              (any other arch: libseccomp decides, incl. its bad-arch action)
// section (most archs):
//   ld  seccomp_data.nr
//   [s390/s390x: jeq 0, 0, 1 ; ret ENOSYS]
//   jgt MAX, 0, 1 ; ret ENOSYS ; ja filter
// section (x86_64):
//   ld  seccomp_data.nr
//   jset X32_BIT, 0, <len of x32 part>
//   x32 part:    jgt MAX_X32, 0, 1 ; ret ENOSYS ; ja filter     (or just `ja filter` without x32)
//   native part: jgt MAX, 0, 1 ; ret ENOSYS ; ja filter
#include "seccomp/enosys_stub.hpp"

#include <linux/audit.h>
#include <linux/seccomp.h>

#include <cerrno>
#include <cstddef>

#include "seccomp/kernel.hpp"

namespace husk::seccomp {
namespace {

constexpr std::uint32_t kRetEnosys = kRetErrno | (ENOSYS & SECCOMP_RET_DATA);

class StubWriter {
public:
    std::size_t size() const { return code_.size(); }

    void load(std::size_t offset) { emit(BPF_STMT(BPF_LD | BPF_W | BPF_ABS, static_cast<std::uint32_t>(offset))); }
    void ret_enosys() { emit(BPF_STMT(BPF_RET | BPF_K, kRetEnosys)); }
    void jump_if(std::uint16_t op, std::uint32_t k, std::uint8_t jt, std::uint8_t jf) {
        emit(BPF_JUMP(BPF_JMP | op | BPF_K, k, jt, jf));
    }
    // `ja` to a target known later; returns the index to patch.
    std::size_t jump_placeholder() {
        emit(BPF_JUMP(BPF_JMP | BPF_JA, 0, 0, 0));
        return code_.size() - 1;
    }
    void jump_to_filter() { to_filter_.push_back(jump_placeholder()); }
    void patch(std::size_t at, std::size_t target) { code_[at].k = static_cast<std::uint32_t>(target - at - 1); }

    // The three instructions "above max: ENOSYS, else the filter".
    void limit(std::uint32_t max) {
        jump_if(BPF_JGT, max, 0, 1);
        ret_enosys();
        jump_to_filter();
    }

    std::vector<sock_filter> finish() {
        for (std::size_t at : to_filter_) patch(at, code_.size());
        return std::move(code_);
    }

private:
    void emit(sock_filter instruction) { code_.push_back(instruction); }

    std::vector<sock_filter> code_;
    std::vector<std::size_t> to_filter_;
};

bool has_limit(const StubArch& arch) { return arch.max || arch.max_x32; }

// s390 multiplexes syscall numbers it cannot encode through number 0; one the kernel does not know stays 0,
// so 0 must get ENOSYS as well (runc's patchbpf documents the same).
bool multiplexes_zero(std::uint32_t audit_arch) {
    return audit_arch == AUDIT_ARCH_S390 || audit_arch == AUDIT_ARCH_S390X;
}

void write_section(StubWriter& stub, const StubArch& arch) {
    stub.load(offsetof(seccomp_data, nr));
    if (arch.audit_arch == AUDIT_ARCH_X86_64) {
        std::uint8_t x32_length = arch.max_x32 ? 3 : 1;
        stub.jump_if(BPF_JSET, kX32SyscallBit, 0, x32_length);
        if (arch.max_x32) stub.limit(*arch.max_x32);
        else stub.jump_to_filter();
    } else if (multiplexes_zero(arch.audit_arch)) {
        stub.jump_if(BPF_JEQ, 0, 0, 1);
        stub.ret_enosys();
    }
    if (arch.max) stub.limit(*arch.max);
    else stub.jump_to_filter();
}

}  // namespace

std::vector<sock_filter> make_enosys_stub(std::span<const StubArch> archs) {
    StubWriter stub;
    stub.load(offsetof(seccomp_data, arch));
    std::vector<std::pair<std::size_t, const StubArch*>> dispatch;
    for (const StubArch& arch : archs) {
        if (!has_limit(arch)) continue;
        stub.jump_if(BPF_JEQ, arch.audit_arch, 0, 1);
        dispatch.emplace_back(stub.jump_placeholder(), &arch);
    }
    if (dispatch.empty()) return {};
    stub.jump_to_filter();
    for (auto& [jump, arch] : dispatch) {
        stub.patch(jump, stub.size());
        write_section(stub, *arch);
    }
    return stub.finish();
}

}  // namespace husk::seccomp
