#include "seccomp/cache.hpp"

#include <fcntl.h>
#include <seccomp.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>

#include "base/fs.hpp"

namespace husk::seccomp {
namespace {

void append(std::string& out, std::uint64_t value) {
    out.append(reinterpret_cast<const char*>(&value), sizeof value);
}

// What could make the same profile compile differently in another run: the boot (the kernel), the husk
// binary and the libseccomp linked into it. Empty when any of it cannot be read.
std::string run_identity() {
    auto boot = read_file("/proc/sys/kernel/random/boot_id");
    if (!boot) return {};
    struct stat self{};
    if (::stat("/proc/self/exe", &self) != 0) return {};
    std::string out = "husk seccomp cache 1\n" + *boot;
    for (std::uint64_t value : {static_cast<std::uint64_t>(self.st_dev), static_cast<std::uint64_t>(self.st_ino),
                                static_cast<std::uint64_t>(self.st_size),
                                static_cast<std::uint64_t>(self.st_mtim.tv_sec), static_cast<std::uint64_t>(self.st_mtim.tv_nsec),
                                static_cast<std::uint64_t>(self.st_ctim.tv_sec), static_cast<std::uint64_t>(self.st_ctim.tv_nsec)})
        append(out, value);
    const scmp_version* version = seccomp_version();
    if (version == nullptr) return {};
    for (unsigned part : {version->major, version->minor, version->micro}) append(out, part);
    return out;
}

// FNV-1a, 64 bits: only the file's name; the key itself is compared in full.
std::string file_name(const std::string& key) {
    std::uint64_t hash = 14695981039346656037ULL;
    for (unsigned char byte : key) hash = (hash ^ byte) * 1099511628211ULL;
    char name[17];
    std::snprintf(name, sizeof name, "%016llx", static_cast<unsigned long long>(hash));
    return name;
}

// The cache directory, made if missing; only when it is the caller's own and closed to everyone else.
std::optional<UniqueFd> open_cache_dir(const std::string& state_root, bool create) {
    const std::string path = state_root + "/" + cache_dir_name;
    if (create && ::mkdir(path.c_str(), 0700) != 0 && errno != EEXIST) return std::nullopt;
    auto dir = open_fd(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (!dir) return std::nullopt;
    struct stat st{};
    if (::fstat(dir->get(), &st) != 0 || st.st_uid != ::geteuid() || (st.st_mode & 077) != 0) return std::nullopt;
    return std::move(*dir);
}

// A cache file: the key's length (8 bytes), the key, then the program.
constexpr std::size_t max_file_size = (std::size_t{1} << 20) + BPF_MAXINSNS * sizeof(sock_filter);

}  // namespace

std::string program_cache_key(const Profile& profile) {
    std::string key = run_identity();
    if (key.empty()) return {};
    append(key, profile.default_action.value);
    append(key, profile.architectures.size());
    for (std::uint32_t arch : profile.architectures) append(key, arch);
    append(key, profile.rules.size());
    for (const Rule& rule : profile.rules) {
        append(key, static_cast<std::uint64_t>(static_cast<std::int64_t>(rule.number)));
        append(key, rule.action.value);
        append(key, rule.alternatives.size());
        for (const auto& comparisons : rule.alternatives) {
            append(key, comparisons.size());
            for (const scmp_arg_cmp& c : comparisons) {
                append(key, c.arg);
                append(key, static_cast<std::uint64_t>(c.op));
                append(key, c.datum_a);
                append(key, c.datum_b);
            }
        }
    }
    return key;
}

std::optional<std::vector<sock_filter>> read_cached_program(const std::string& state_root, const std::string& key) {
    if (key.empty()) return std::nullopt;
    auto dir = open_cache_dir(state_root, false);
    if (!dir) return std::nullopt;
    auto file = open_fd_at(dir->get(), file_name(key), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (!file) return std::nullopt;
    struct stat st{};
    if (::fstat(file->get(), &st) != 0 || !S_ISREG(st.st_mode) || st.st_uid != ::geteuid() || (st.st_mode & 022) != 0)
        return std::nullopt;
    auto content = read_fd(file->get(), max_file_size);
    if (!content) return std::nullopt;
    std::uint64_t key_size = 0;
    if (content->size() < sizeof key_size) return std::nullopt;
    std::memcpy(&key_size, content->data(), sizeof key_size);
    if (key_size != key.size() || content->compare(sizeof key_size, key.size(), key) != 0) return std::nullopt;
    const std::size_t program_bytes = content->size() - sizeof key_size - key.size();
    if (program_bytes == 0 || program_bytes % sizeof(sock_filter) != 0 ||
        program_bytes / sizeof(sock_filter) > BPF_MAXINSNS)
        return std::nullopt;
    std::vector<sock_filter> program(program_bytes / sizeof(sock_filter));
    std::memcpy(program.data(), content->data() + sizeof key_size + key.size(), program_bytes);
    return program;
}

void store_cached_program(const std::string& state_root, const std::string& key, const std::vector<sock_filter>& program) {
    if (key.empty() || program.empty()) return;
    auto dir = open_cache_dir(state_root, true);
    if (!dir) return;
    std::string content;
    append(content, key.size());
    content += key;
    content.append(reinterpret_cast<const char*>(program.data()), program.size() * sizeof(sock_filter));
    (void)write_file_atomic(dir->get(), file_name(key), content, 0600);
}

}  // namespace husk::seccomp
