#include "ns/id_maps.hpp"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <string_view>

#include "base/fs.hpp"
#include "husk/unique_fd.hpp"

extern char** environ;

namespace husk::ns {
namespace {

bool is_own_id(const std::vector<spec::IdMapping>& maps, std::uint32_t id) {
    return maps.size() == 1 && maps[0].host_id == id && maps[0].size == 1;
}

}  // namespace

Result<MapWriter> choose_map_writer(const std::vector<spec::IdMapping>& uid_mappings,
                                    const std::vector<spec::IdMapping>& gid_mappings, bool rootless, uid_t euid,
                                    gid_t egid) {
    if (!rootless) return MapWriter::husk;
    if (is_own_id(uid_mappings, euid) && is_own_id(gid_mappings, egid)) return MapWriter::own_ids;
    for (const char* helper : {newuidmap_path, newgidmap_path})
        if (::access(helper, X_OK) != 0)
            return fail_msg("linux.uidMappings / linux.gidMappings: without root, mapping more than your own uid " +
                            std::to_string(euid) + " and gid " + std::to_string(egid) + " needs " + helper +
                            " (Debian's package uidmap) and your ranges in /etc/subuid and /etc/subgid "
                            "(docs/rootless.md)");
    return MapWriter::helpers;
}

Result<void> run_map_helper(const char* helper, pid_t child, const std::vector<spec::IdMapping>& maps,
                            const char* field) {
    std::vector<std::string> words = {helper, std::to_string(child)};
    for (const spec::IdMapping& m : maps)
        for (std::uint32_t value : {m.container_id, m.host_id, m.size}) words.push_back(std::to_string(value));
    std::vector<char*> argv;
    for (std::string& word : words) argv.push_back(word.data());
    argv.push_back(nullptr);

    auto [read_end, write_end] = TRY(open_pipe());
    posix_spawn_file_actions_t actions;
    ::posix_spawn_file_actions_init(&actions);
    ::posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
    ::posix_spawn_file_actions_adddup2(&actions, write_end.get(), 1);
    ::posix_spawn_file_actions_adddup2(&actions, write_end.get(), 2);
    pid_t pid = 0;
    int err = ::posix_spawn(&pid, helper, &actions, nullptr, argv.data(), environ);
    ::posix_spawn_file_actions_destroy(&actions);
    write_end.reset();
    if (err != 0) return fail(Error::sys(err, "spawn", helper).context(field));
    std::string said;
    char buffer[512];
    for (ssize_t n; (n = ::read(read_end.get(), buffer, sizeof buffer)) != 0;) {
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) break;
        if (said.size() < 4096) said.append(buffer, static_cast<std::size_t>(n));
    }
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0)
        if (errno != EINTR) return fail(Error::sys(errno, "wait for", helper).context(field));
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return {};
    while (!said.empty() && (said.back() == '\n' || said.back() == ' ')) said.pop_back();
    return fail_msg(std::string(field) + ": " + helper + " failed" + (said.empty() ? std::string() : ": " + said) +
                    " (your ranges in /etc/subuid and /etc/subgid must hold every host id mapped)");
}

}  // namespace husk::ns
