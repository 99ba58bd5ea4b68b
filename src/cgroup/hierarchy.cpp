#include "cgroup/hierarchy.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <sys/statfs.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <limits>
#include <vector>

#include "base/dir.hpp"
#include "base/fs.hpp"
#include "base/quote.hpp"
#include "cgroup/cgroup.hpp"

namespace husk::cgroup {
namespace {

std::vector<std::string_view> split(std::string_view text, char separator) {
    std::vector<std::string_view> parts;
    for (;;) {
        std::size_t at = text.find(separator);
        parts.push_back(text.substr(0, at));
        if (at == std::string_view::npos) return parts;
        text.remove_prefix(at + 1);
    }
}

// Joins the non-empty components of path, dropping "." and refusing ".." (no escape from the subtree).
Result<std::string> clean_components(std::string_view path, std::string_view original) {
    std::string out;
    for (std::string_view part : split(path, '/')) {
        if (part.empty() || part == ".") continue;
        if (part == "..")
            return fail_msg("linux.cgroupsPath " + quoted(original) + ": \"..\" components are not allowed");
        out += '/';
        out += part;
    }
    return out;
}

// mountinfo escapes space, tab, newline and backslash as \ooo (proc_pid_mountinfo(5)).
std::string unescape_octal(std::string_view text) {
    std::string out;
    for (std::size_t i = 0; i < text.size(); ++i) {
        bool escape = text[i] == '\\' && i + 3 < text.size() &&
                      std::all_of(text.begin() + static_cast<long>(i) + 1, text.begin() + static_cast<long>(i) + 4,
                                  [](char c) { return c >= '0' && c <= '7'; });
        if (escape) {
            out += static_cast<char>((text[i + 1] - '0') * 64 + (text[i + 2] - '0') * 8 + (text[i + 3] - '0'));
            i += 3;
        } else {
            out += text[i];
        }
    }
    return out;
}

}  // namespace

namespace {

// /husk/tenants holds the shared parents of tenants' runs (shared_parent.hpp): a container placed there by its
// id or cgroupsPath would share a tenant's limits, or put processes where tenants' runs need none.
Result<std::string> outside_shared_parents(std::string path, std::string_view cgroups_path) {
    std::string reserved(shared_parents_subtree);
    if (path != reserved && !path.starts_with(reserved + "/")) return path;
    return fail_msg("cgroup " + quoted(path) + " (linux.cgroupsPath " + quoted(cgroups_path) + "): " + reserved +
                    " is where husk places tenants' runs; choose another cgroupsPath");
}

Result<std::string> resolve_path(std::string_view cgroups_path, std::string_view container_id);

}  // namespace

Result<std::string> resolve_cgroup_path(std::string_view cgroups_path, std::string_view container_id) {
    return outside_shared_parents(TRY(resolve_path(cgroups_path, container_id)), cgroups_path);
}

namespace {

Result<std::string> resolve_path(std::string_view cgroups_path, std::string_view container_id) {
    if (container_id.empty() || container_id == "." || container_id == ".." ||
        container_id.find('/') != std::string_view::npos)
        return fail_msg("container id " + quoted(container_id) + " cannot name a cgroup");
    if (cgroups_path.empty()) return std::string(husk_subtree) + "/" + std::string(container_id);

    // runc's systemd driver takes "slice:prefix:name"; a cgroupfs path never looks like that by accident.
    // sd_booted(3): systemd is running when /run/systemd/system exists.
    if (cgroups_path.find('/') == std::string_view::npos && split(cgroups_path, ':').size() == 3) {
        bool systemd = ::access("/run/systemd/system", F_OK) == 0;
        return fail_msg("linux.cgroupsPath " + quoted(cgroups_path) + " uses the systemd form (slice:prefix:name)" +
                        (systemd ? "" : ", but no systemd is running on this host") +
                        "; husk manages cgroups itself (cgroupfs): give a path such as \"/mygroup/" +
                        std::string(container_id) + "\"");
    }

    std::string cleaned = TRY(clean_components(cgroups_path, cgroups_path));
    if (cgroups_path.front() == '/') {
        if (cleaned.empty())
            return fail_msg("linux.cgroupsPath " + quoted(cgroups_path) +
                            ": the root cgroup cannot hold a container");
        return cleaned;
    }
    if (cleaned.empty()) return fail_msg("linux.cgroupsPath " + quoted(cgroups_path) + ": names no cgroup");
    return std::string(husk_subtree) + cleaned;
}

}  // namespace

Result<void> validate_cgroup_path(std::string_view path) {
    if (path.empty() || path.front() != '/') return fail_msg("cgroup path " + quoted(path) + " is not absolute");
    std::vector<std::string_view> parts = split(path.substr(1), '/');
    for (std::string_view part : parts)
        if (part.empty() || part == "." || part == "..")
            return fail_msg("cgroup path " + quoted(path) + " is not a clean path below the v2 root");
    return {};
}

Result<std::string> parse_v2_mount(std::string_view mountinfo) {
    for (std::string_view rest = mountinfo; !rest.empty();) {
        const std::size_t end = std::min(rest.find('\n'), rest.size());
        const std::string_view line = rest.substr(0, end);
        rest.remove_prefix(std::min(end + 1, rest.size()));
        // "36 35 98:0 / /mnt rw,noatime master:1 - cgroup2 cgroup2 rw": fields after " - " are
        // fstype, source, super options; the mount point is the fifth field.
        std::size_t dash = line.find(" - ");
        if (dash == std::string_view::npos) continue;
        const std::string_view fstype = line.substr(dash + 3, line.find(' ', dash + 3) - (dash + 3));
        if (fstype != "cgroup2") continue;
        std::vector<std::string_view> before = split(line.substr(0, dash), ' ');
        if (before.size() < 5) continue;
        return unescape_octal(before[4]);
    }
    return fail_msg("no cgroup2 mount in /proc/self/mountinfo; husk needs the cgroup v2 hierarchy");
}

Result<std::string> find_v2_mount() {
    std::string mountinfo = TRY(read_file("/proc/self/mountinfo"));
    return parse_v2_mount(mountinfo);
}

Result<UniqueFd> open_v2_root(const std::string& mount) {
    UniqueFd fd = TRY(open_fd(mount, O_DIRECTORY | O_RDONLY));
    struct statfs fs {};
    if (::fstatfs(fd.get(), &fs) != 0) return fail_sys(errno, "statfs", mount);
    if (fs.f_type != CGROUP2_SUPER_MAGIC)
        return fail_msg(quoted(mount) + " is not a cgroup2 mount; husk never writes cgroup v1");
    return fd;
}

Result<UniqueFd> open_cgroup_dir(const CgroupLocation& cgroup) {
    TRY(validate_cgroup_path(cgroup.path));
    UniqueFd root = TRY(open_v2_root(cgroup.mount));
    return open_fd_at(root.get(), relative_to_root(cgroup.path), O_DIRECTORY | O_RDONLY | O_NOFOLLOW, cgroup.where());
}

Result<std::string> read_cgroup_file(int dir_fd, const char* name, const std::string& where) {
    UniqueFd file = TRY(open_fd_at(dir_fd, name, O_RDONLY, where + "/" + name));
    auto text = read_fd(file.get());
    if (!text) return fail_sys(text.error().err, "read", where + "/" + name);
    return text;
}

Result<void> write_cgroup_file(int dir_fd, const char* name, std::string_view content, const std::string& where) {
    UniqueFd file = TRY(open_fd_at(dir_fd, name, O_WRONLY, where + "/" + name));
    ssize_t n = ::write(file.get(), content.data(), content.size());
    if (n < 0) return fail_sys(errno, "write", where + "/" + name);
    if (static_cast<std::size_t>(n) != content.size()) return fail_sys(EIO, "short write", where + "/" + name);
    return {};
}

bool file_exists(int dir_fd, std::string_view name) {
    return ::faccessat(dir_fd, std::string(name).c_str(), F_OK, AT_SYMLINK_NOFOLLOW) == 0;
}

std::vector<std::string> split_words(std::string_view text) {
    std::vector<std::string> out;
    for (std::size_t at = 0; at < text.size();) {
        std::size_t start = text.find_first_not_of(" \t\n", at);
        if (start == std::string_view::npos) break;
        std::size_t end = std::min(text.find_first_of(" \t\n", start), text.size());
        out.emplace_back(text.substr(start, end - start));
        at = end;
    }
    return out;
}

bool list_contains(const std::vector<std::string>& list, std::string_view item) {
    return std::find(list.begin(), list.end(), item) != list.end();
}

long long flat_keyed_value(std::string_view text, std::string_view key) {
    for (std::string_view line : split(text, '\n')) {
        if (line.size() > key.size() && line.starts_with(key) && line[key.size()] == ' ') {
            long long value = 0;
            for (char c : line.substr(key.size() + 1)) {
                if (c < '0' || c > '9' || value > (std::numeric_limits<long long>::max() - 9) / 10) return -1;
                value = value * 10 + (c - '0');
            }
            return value;
        }
    }
    return -1;
}

Result<std::vector<std::string>> list_child_cgroups(int dir_fd, const std::string& where) {
    std::vector<std::string> children;
    for (const DirEntry& entry : TRY(list_dir_at(dir_fd, where)))
        if (entry.type == DT_DIR) children.push_back(entry.name);
    return children;
}

std::string relative_to_root(std::string_view path) {
    while (!path.empty() && path.front() == '/') path.remove_prefix(1);
    return path.empty() ? std::string(".") : std::string(path);
}

}  // namespace husk::cgroup
