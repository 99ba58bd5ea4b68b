#include "base/caller_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <deque>
#include <optional>

#include "base/fs.hpp"
#include "base/quote.hpp"

namespace husk {
namespace {

// linux/namei.h's MAXSYMLINKS: the kernel's own bound on symlinks in one lookup.
constexpr int max_symlinks = 40;

bool trusted_owner(uid_t uid) { return uid == 0 || uid == ::getuid(); }
bool trusted_group(gid_t gid) { return gid == 0 || gid == ::getgid(); }

std::string caller() { return "husk's caller (uid " + std::to_string(::getuid()) + ")"; }

// Why a directory on the way lets another user steer what is below it, or nothing. A sticky directory (/tmp)
// is writable by all, but nobody removes or renames an entry there that is not theirs: its entries are judged
// one by one instead (`in_sticky`).
std::string foreign_owner(const struct stat& st) {
    return "is owned by uid " + std::to_string(st.st_uid) + ", who is neither root nor " + caller();
}

// What else makes a directory unsafe, whoever owns it.
std::optional<std::string> writable_by_others(const struct stat& st) {
    if (st.st_mode & S_ISVTX) return std::nullopt;
    if (st.st_mode & S_IWOTH) return std::string("is writable by every user");
    if ((st.st_mode & S_IWGRP) && !trusted_group(st.st_gid))
        return "is writable by group " + std::to_string(st.st_gid);
    return std::nullopt;
}

std::optional<std::string> unsafe_directory(const struct stat& st) {
    if (!trusted_owner(st.st_uid)) return foreign_owner(st);
    return writable_by_others(st);
}

// A file with more than one name in a directory another user owns may be a hard link they made to a file of
// someone else's.
std::string another_name(const struct stat& st) {
    return "has " + std::to_string(st.st_nlink) + " names in a directory of another user's, who could have linked " +
           "it to a file elsewhere";
}

std::optional<std::string> unsafe_in_sticky(const struct stat& st, bool in_sticky) {
    if (!in_sticky || trusted_owner(st.st_uid)) return std::nullopt;
    return "belongs to uid " + std::to_string(st.st_uid) + " in a sticky directory, and is neither root's nor " +
           caller() + "'s";
}

void push_components(std::deque<std::string>& todo, std::string_view path) {
    std::deque<std::string> parts;
    while (!path.empty()) {
        std::size_t slash = path.find('/');
        std::string_view part = path.substr(0, slash);
        if (!part.empty() && part != ".") parts.emplace_back(part);
        if (slash == std::string_view::npos) break;
        path.remove_prefix(slash + 1);
    }
    todo.insert(todo.begin(), parts.begin(), parts.end());
}

std::string parent_of(const std::string& where) {
    std::size_t slash = where.rfind('/');
    return slash == std::string::npos || slash == 0 ? std::string() : where.substr(0, slash);
}

}  // namespace

Result<CallerFile> open_caller_file(const std::string& path, std::string_view flag) {
    const std::string named = std::string(flag) + " " + path + ": ";
    auto refuse = [&](const std::string& what, const std::string& why) {
        return fail_msg(named + what + " " + why + ": another user could redirect what husk writes there; use a " +
                        "directory only root or you can write");
    };
    if (path.empty()) return fail_msg(std::string(flag) + ": an empty path");
    std::string absolute = path;
    if (absolute[0] != '/') {
        char cwd[PATH_MAX];
        if (::getcwd(cwd, sizeof cwd) == nullptr) return fail_sys(errno, "getcwd");
        absolute = std::string(cwd) + "/" + path;
    }
    const std::size_t slash = absolute.rfind('/');
    const std::string name = absolute.substr(slash + 1);
    if (name.empty() || name == "." || name == "..") return fail_msg(named + "names a directory, not a file");

    UniqueFd dir = TRY(open_fd("/", O_PATH | O_DIRECTORY));
    struct stat st {};
    if (::fstat(dir.get(), &st) != 0) return fail_sys(errno, "fstat", "/");
    if (auto why = unsafe_directory(st)) return refuse("/", *why);
    bool sticky = st.st_mode & S_ISVTX;
    std::string where;  // the directory reached, "" for "/"
    // Set when the directory reached belongs to another user: allowed only as the file's own directory.
    std::optional<std::string> foreign;
    std::deque<std::string> todo;
    push_components(todo, std::string_view(absolute).substr(0, slash));
    int links = 0;
    while (!todo.empty()) {
        const std::string part = std::move(todo.front());
        todo.pop_front();
        if (foreign) return refuse(where, *foreign);
        if (part == "..") {
            // An ancestor of a directory reached from "/" was itself reached, and judged, on the way down.
            dir = TRY(open_fd_at(dir.get(), "..", O_PATH | O_DIRECTORY));
            where = parent_of(where);
            if (::fstat(dir.get(), &st) != 0) return fail_sys(errno, "fstat", where.empty() ? "/" : where);
            sticky = st.st_mode & S_ISVTX;
            continue;
        }
        const std::string here = where + "/" + part;
        struct stat entry {};
        if (::fstatat(dir.get(), part.c_str(), &entry, AT_SYMLINK_NOFOLLOW) != 0)
            return fail(Error::sys(errno, "stat", here).context(std::string(flag) + " " + path));
        if (auto why = unsafe_in_sticky(entry, sticky)) return refuse(here, *why);
        if (S_ISLNK(entry.st_mode)) {
            // Made by root or the caller (the directory admits no one else), so where it leads is theirs to say.
            if (++links > max_symlinks) return fail_sys(ELOOP, "resolve", named + here);
            char target[PATH_MAX];
            ssize_t n = ::readlinkat(dir.get(), part.c_str(), target, sizeof target - 1);
            if (n < 0) return fail_sys(errno, "readlink", here);
            const std::string_view link(target, static_cast<std::size_t>(n));
            push_components(todo, link);
            if (link.starts_with('/')) {
                dir = TRY(open_fd("/", O_PATH | O_DIRECTORY));
                where.clear();
                if (::fstat(dir.get(), &st) != 0) return fail_sys(errno, "fstat", "/");
                sticky = st.st_mode & S_ISVTX;
            }
            continue;
        }
        UniqueFd next = TRY(open_fd_at(dir.get(), part, O_PATH | O_DIRECTORY | O_NOFOLLOW, here));
        if (::fstat(next.get(), &st) != 0) return fail_sys(errno, "fstat", here);
        if (auto why = unsafe_in_sticky(st, sticky)) return refuse(here, *why);
        if (auto why = writable_by_others(st)) return refuse(here, *why);
        if (!trusted_owner(st.st_uid)) foreign = foreign_owner(st);
        sticky = st.st_mode & S_ISVTX;
        dir = std::move(next);
        where = here;
    }
    UniqueFd real = TRY(open_fd_at(dir.get(), ".", O_RDONLY | O_DIRECTORY, where.empty() ? "/" : where));
    const std::string file = where + "/" + name;
    struct stat target {};
    if (::fstatat(real.get(), name.c_str(), &target, AT_SYMLINK_NOFOLLOW) == 0) {
        if (S_ISLNK(target.st_mode)) return refuse(file, "is a symbolic link, which husk does not follow");
        if (!S_ISREG(target.st_mode))
            return fail_msg(named + file + " is not a regular file (a directory, a FIFO or a device): husk writes " +
                            "regular files only");
        if (auto why = unsafe_in_sticky(target, sticky)) return refuse(file, *why);
        if (foreign && target.st_nlink != 1) return refuse(file, another_name(target));
    } else if (errno != ENOENT) {
        return fail(Error::sys(errno, "stat", file).context(std::string(flag) + " " + path));
    }
    return CallerFile{std::move(real), name, foreign.has_value()};
}

Result<void> append_caller_file(const std::string& path, std::string_view flag, std::string_view text) {
    CallerFile target = TRY(open_caller_file(path, flag));
    // O_NOFOLLOW and O_NONBLOCK for what may have appeared since the check: a symlink is not followed, a FIFO
    // without a reader fails at once (ENXIO), one with a reader is refused below, never written.
    constexpr int flags = O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW | O_NONBLOCK;
    auto opened = open_fd_at(target.dir.get(), target.name, flags, 0644);
    if (!opened) return fail(opened.error().context(std::string(flag) + " " + path));
    UniqueFd fd = std::move(*opened);
    struct stat st {};
    if (::fstat(fd.get(), &st) != 0) return fail_sys(errno, "fstat", path);
    if (!S_ISREG(st.st_mode)) return fail_msg(std::string(flag) + " " + path + ": not a regular file");
    if (target.foreign_directory && st.st_nlink != 1)
        return fail_msg(std::string(flag) + " " + path + ": a hard link appeared in a directory of another user's");
    return write_all(fd.get(), text);
}

}  // namespace husk
