#include "process/posture.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

namespace husk::process {
namespace {

// The value after "Key:" on its line, or nullptr.
const char* field(const char* text, const char* key) noexcept {
    std::size_t length = std::strlen(key);
    for (const char* line = text; line != nullptr && *line != '\0';) {
        if (std::strncmp(line, key, length) == 0 && line[length] == ':') {
            const char* value = line + length + 1;
            while (*value == ' ' || *value == '\t') ++value;
            return value;
        }
        line = std::strchr(line, '\n');
        if (line != nullptr) ++line;
    }
    return nullptr;
}

int decimal(const char* value) noexcept {
    if (value == nullptr) return -1;
    int n = 0;
    for (; *value >= '0' && *value <= '9'; ++value) n = n * 10 + (*value - '0');
    return n;
}

std::uint64_t hex(const char* value) noexcept {
    std::uint64_t n = 0;
    for (; value != nullptr; ++value) {
        char c = *value;
        if (c >= '0' && c <= '9') n = n * 16 + static_cast<std::uint64_t>(c - '0');
        else if (c >= 'a' && c <= 'f') n = n * 16 + static_cast<std::uint64_t>(c - 'a' + 10);
        else break;
    }
    return n;
}

std::string mask(std::uint64_t bits) {
    char text[19];
    std::snprintf(text, sizeof text, "0x%016llx", static_cast<unsigned long long>(bits));
    return text;
}

}  // namespace

Result<Posture> read_posture(int status_fd, int landlock_abi) noexcept {
    // read(2), not pread: the fd is fresh (offset 0), and read is the one call every profile that lets the
    // workload do anything must allow.
    char text[8192];
    std::size_t used = 0;
    while (used < sizeof text - 1) {
        ssize_t n = ::read(status_fd, text + used, sizeof text - 1 - used);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) return fail_sys(errno, "read", "/proc/self/status");
        if (n == 0) break;
        used += static_cast<std::size_t>(n);
    }
    if (used == 0) return fail_sys(EIO, "read", "/proc/self/status");
    text[used] = '\0';
    Posture posture;
    posture.seccomp_mode = decimal(field(text, "Seccomp"));
    posture.seccomp_filters = decimal(field(text, "Seccomp_filters"));
    posture.no_new_privs = decimal(field(text, "NoNewPrivs"));
    posture.cap_effective = hex(field(text, "CapEff"));
    posture.cap_bounding = hex(field(text, "CapBnd"));
    posture.landlock_abi = landlock_abi;
    return posture;
}

Result<void> check_posture(const Posture& posture, const ExpectedPosture& expected) {
    std::string missing;
    auto add = [&](const std::string& what) { missing += (missing.empty() ? "" : "; ") + what; };
    if (expected.seccomp && (posture.seccomp_mode != 2 || posture.seccomp_filters == 0))
        add("linux.seccomp: no seccomp filter in effect (Seccomp: " + std::to_string(posture.seccomp_mode) + ")");
    if (expected.no_new_privs && posture.no_new_privs != 1) add("process.noNewPrivileges: NoNewPrivs is not 1");
    if (expected.landlock && posture.landlock_abi <= 0) add("process.landlock: no Landlock domain in effect");
    if (posture.cap_effective != expected.cap_effective)
        add("process.capabilities.effective: CapEff is " + mask(posture.cap_effective) + ", expected " +
            mask(expected.cap_effective));
    if (posture.cap_bounding != expected.cap_bounding)
        add("process.capabilities.bounding: CapBnd is " + mask(posture.cap_bounding) + ", expected " +
            mask(expected.cap_bounding));
    if (missing.empty()) return {};
    return fail_msg("verified posture: requested but not in effect: " + missing);
}

}  // namespace husk::process
