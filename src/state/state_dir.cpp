#include "state/state_dir.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string_view>
#include <utility>

#include "base/dir.hpp"
#include "base/fs.hpp"
#include "base/proc_stat.hpp"
#include "state/process_identity.hpp"

namespace husk::state {
namespace {

constexpr const char* lock_name = StateDir::lock_file;
constexpr const char* record_name = StateDir::record_file;

Result<void> remove_entries(int dirfd, const std::string& path) {
    int err = 0;
    for (const DirEntry& entry : TRY(list_dir_at(dirfd, path))) {
        int flags = entry.type == DT_DIR ? AT_REMOVEDIR : 0;
        if (::unlinkat(dirfd, entry.name.c_str(), flags) != 0 && errno != ENOENT) err = errno;
    }
    if (err != 0) return fail_sys(err, "remove", path);
    return {};
}

// '@' is not allowed in an id, so no container's own directory (`.x` is a valid id, as with runc) can ever
// have the name of a temporary, and no temporary of one id can look like another id's.
std::string creating_prefix(const ContainerId& id) { return ".creating@" + id.str() + "@"; }

// "<pid>.<start time>-XXXXXX", what follows the prefix of one id: the creator's identity, or nothing when the
// name does not have exactly that shape (it may belong to another id that begins with this one).
std::optional<std::pair<pid_t, std::uint64_t>> parse_creator(std::string_view rest) {
    auto dot = rest.find('.');
    auto dash = rest.find('-');
    if (dot == std::string_view::npos || dash == std::string_view::npos || dot > dash || rest.size() != dash + 7)
        return std::nullopt;
    auto digits = [](std::string_view text) {
        return !text.empty() && text.size() < 20 && text.find_first_not_of("0123456789") == std::string_view::npos;
    };
    std::string_view pid = rest.substr(0, dot), start = rest.substr(dot + 1, dash - dot - 1);
    if (!digits(pid) || !digits(start)) return std::nullopt;
    for (char c : rest.substr(dash + 1))
        if (!std::isalnum(static_cast<unsigned char>(c))) return std::nullopt;
    return std::pair{static_cast<pid_t>(std::stoll(std::string(pid))), std::stoull(std::string(start))};
}

}  // namespace

Result<void> make_root(const std::string& root) {
    // mkdir -p: the root may be nested (containerd passes /run/containerd/runc/<namespace>). Without root
    // (docs/rootless.md) what husk makes is the caller's alone: 0700, no other user reaches its state.
    const mode_t mode = ::geteuid() == 0 ? 0711 : 0700;
    for (std::size_t slash = 1; slash <= root.size(); ++slash) {
        if (slash != root.size() && root[slash] != '/') continue;
        std::string prefix = root.substr(0, slash);
        if (::mkdir(prefix.c_str(), mode) != 0 && errno != EEXIST) return fail_sys(errno, "mkdir", prefix);
    }
    return {};
}

Result<StateDir> StateDir::create(const std::string& root, const ContainerId& id, const Record* first) {
    if (id.str() == tenants_dir)
        return fail_msg("container id \"tenants\" is reserved: <root>/tenants holds the tenant ledgers "
                        "(docs/tenants.md)");
    TRY(make_root(root));
    const ProcStat self = TRY(read_proc_stat(::getpid()));
    std::string tmp = root + "/" + creating_prefix(id) + std::to_string(::getpid()) + "." +
                      std::to_string(self.start_time) + "-XXXXXX";
    if (::mkdtemp(tmp.data()) == nullptr) return fail_sys(errno, "mkdtemp", tmp);
    auto cleanup_tmp = [&] {
        for (const char* name : {lock_name, record_name}) ::unlink((tmp + "/" + name).c_str());
        ::rmdir(tmp.c_str());
    };
    ::chmod(tmp.c_str(), 0711);
    auto lock = open_fd(tmp + "/" + lock_name, O_RDWR | O_CREAT | O_EXCL, 0600);
    if (!lock || ::flock(lock->get(), LOCK_EX) != 0) {
        cleanup_tmp();
        return fail_sys(lock ? errno : lock.error().err, "lock", tmp);
    }
    if (first != nullptr) {
        // The record is there from the moment <id> is: whoever finds the directory finds what create planned.
        auto written = [&]() -> Result<void> {
            UniqueFd dir = TRY(open_fd(tmp, O_RDONLY | O_DIRECTORY));
            return write_file_atomic(dir.get(), record_name, encode_record(*first));
        }();
        if (!written) {
            cleanup_tmp();
            return fail(written.error());
        }
    }
    std::string path = root + "/" + id.str();
    if (::renameat2(AT_FDCWD, tmp.c_str(), AT_FDCWD, path.c_str(), RENAME_NOREPLACE) != 0) {
        int err = errno;
        cleanup_tmp();
        if (err == EEXIST) return fail_msg("container with id \"" + id.str() + "\" already exists");
        return fail_sys(err, "rename", path);
    }
    auto dir = open_fd(path, O_RDONLY | O_DIRECTORY);
    if (!dir) return std::unexpected(dir.error());
    return StateDir(path, std::move(*dir), std::move(*lock));
}

namespace {

// <root>/<id>, by path or (root_fd not AT_FDCWD) by name under root_fd.
// extra: O_PATH for a reader, which needs the directory only for the *at calls.
Result<UniqueFd> open_container_dir(const std::string& path, int root_fd = AT_FDCWD, const ContainerId* id = nullptr,
                                    int extra = 0) {
    const int flags = O_RDONLY | O_DIRECTORY | O_NOFOLLOW | extra;
    auto dir = root_fd == AT_FDCWD ? open_fd(path, flags) : open_fd_at(root_fd, id->str(), flags, path);
    if (!dir && (dir.error().err == ENOENT || dir.error().err == ENOTDIR))
        return fail_msg("container does not exist", ErrorKind::not_found);
    return dir;
}

}  // namespace

Result<StateDir> StateDir::open(const std::string& root, const ContainerId& id) {
    std::string path = root + "/" + id.str();
    UniqueFd dir = TRY(open_container_dir(path));
    auto lock = open_fd_at(dir.get(), lock_name, O_RDWR);
    if (!lock) {
        if (lock.error().err == ENOENT) return fail_msg("container does not exist", ErrorKind::not_found);
        return std::unexpected(lock.error());
    }
    return StateDir(path, std::move(dir), std::move(*lock));
}

Result<StateDir> StateDir::open_unlocked(const std::string& root, const ContainerId& id, int root_fd) {
    std::string path = root + "/" + id.str();
    UniqueFd dir = TRY(open_container_dir(path, root_fd, &id, O_PATH));
    // Followed like open()'s O_RDWR open of it: a dangling symlink is no lock file either.
    if (::faccessat(dir.get(), lock_name, F_OK, 0) != 0) {
        if (errno == ENOENT) return fail_msg("container does not exist", ErrorKind::not_found);
        return fail_sys(errno, "access", path + "/" + lock_name);
    }
    return StateDir(path, std::move(dir), UniqueFd());
}

Result<void> StateDir::lock(Lock mode) {
    int op = mode == Lock::exclusive ? LOCK_EX : LOCK_SH;
    while (::flock(lock_.get(), op) != 0) {
        if (errno != EINTR) return fail_sys(errno, "lock", path_);
    }
    return {};
}

void StateDir::unlock() { (void)::flock(lock_.get(), LOCK_UN); }

bool StateDir::locked_by_other() const {
    // A second open file description conflicts with locks held through any other description, ours included,
    // so only ask when we hold none ourselves.
    auto probe = open_fd_at(dir_.get(), lock_name, O_RDWR);
    if (!probe) return false;
    if (::flock(probe->get(), LOCK_EX | LOCK_NB) == 0) return false;
    return errno == EWOULDBLOCK;
}

namespace {

// The last record this thread wrote or decoded, with its text. decode_record is a function of the text alone,
// and a record husk writes decodes to itself (checked below in builds with assertions, and by the state_record
// fuzz target), so a state.json that reads back byte for byte as that text is that record: `husk run` reads
// back each record it wrote (start, the monitor, delete) without decoding it again. The file is still read
// each time; only the decoding is spared.
struct KnownRecord {
    std::string text;
    Record record;
};
thread_local std::optional<KnownRecord> known_record;

}  // namespace

Result<Record> StateDir::read_record() const {
    std::string json = TRY(read_file_at(dir_.get(), record_name));
    Record record;
    if (known_record && known_record->text == json) {
        record = known_record->record;
    } else {
        known_record.reset();
        record = TRY(decode_record(json));
        known_record = KnownRecord{std::move(json), record};
    }
    if (auto error = read_file_at(dir_.get(), monitor_error, 4096)) record.monitor_error = std::move(*error);
    else if (error.error().err != ENOENT) record.monitor_error = "";
    return record;
}

void StateDir::note_monitor_error(std::string_view message) const {
    auto file = open_fd_at(dir_.get(), monitor_error, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW, 0600);
    if (file) (void)write_all(file->get(), message);
}

Result<void> StateDir::write_record(const Record& record) {
    std::string text = encode_record(record);
    known_record.reset();
    TRY(write_file_atomic(dir_.get(), record_name, text));
    Record written = record;
    written.monitor_error.reset();  // not part of state.json
#ifndef NDEBUG
    // The rule known_record rests on: what husk writes decodes to what it wrote.
    if (auto decoded = decode_record(text); !decoded || *decoded != written) {
        std::fprintf(stderr, "husk: BUG: state.json does not decode to the record written: %s\n", text.c_str());
        std::abort();
    }
#endif
    known_record = KnownRecord{std::move(text), std::move(written)};
    return {};
}

Result<void> StateDir::remove() {
    TRY(remove_entries(dir_.get(), path_));
    if (::rmdir(path_.c_str()) != 0 && errno != ENOENT) return fail_sys(errno, "rmdir", path_);
    return {};
}

void remove_abandoned_creations(const std::string& root, const ContainerId& id) {
    auto entries = list_dir(root);
    if (!entries) return;
    std::vector<std::string> abandoned;
    const std::string prefix = creating_prefix(id);
    auto boot_id = read_boot_id();
    for (const DirEntry& entry : *entries) {
        std::string_view name = entry.name;
        if (!name.starts_with(prefix)) continue;
        auto creator = parse_creator(name.substr(prefix.size()));
        if (creator && boot_id && !open_live_pidfd(creator->first, creator->second, *boot_id))
            abandoned.emplace_back(name);
    }
    for (const std::string& name : abandoned) {
        std::string path = root + "/" + name;
        auto fd = open_fd(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
        if (fd) (void)remove_entries(fd->get(), path);
        ::rmdir(path.c_str());
    }
}

std::vector<ContainerId> list_ids(const std::string& root) {
    std::vector<std::string> names;
    auto entries = list_dir(root);
    if (!entries) return {};
    for (const DirEntry& entry : *entries) {
        // The `.creating@*` temporaries are not ids: ContainerId::parse skips them below.
        if ((entry.type == DT_DIR || entry.type == DT_UNKNOWN) && entry.name != StateDir::tenants_dir)
            names.push_back(entry.name);
    }
    std::sort(names.begin(), names.end());
    std::vector<ContainerId> ids;
    for (const std::string& name : names)
        if (auto id = ContainerId::parse(name)) ids.push_back(std::move(*id));
    return ids;
}

}  // namespace husk::state
