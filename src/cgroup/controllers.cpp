#include "cgroup/controllers.hpp"

#include <fcntl.h>

#include <algorithm>
#include <cerrno>

#include "base/fs.hpp"
#include "cgroup/hierarchy.hpp"
#include "husk/unique_fd.hpp"

namespace husk::cgroup {
namespace {

// "." (the root), "a", "a/b", ... for path "/a/b/leaf": every cgroup whose subtree_control reaches the leaf.
std::vector<std::string> ancestors(const std::string& path) {
    std::vector<std::string> out{"."};
    std::string relative = relative_to_root(path);
    for (std::size_t slash = relative.find('/'); slash != std::string::npos; slash = relative.find('/', slash + 1))
        out.push_back(relative.substr(0, slash));
    return out;
}

Result<void> enable_required(int dir_fd, const std::string& where, const std::vector<std::string>& missing) {
    std::string request;
    for (const std::string& name : missing) request += (request.empty() ? "+" : " +") + name;
    UniqueFd file = TRY(open_fd_at(dir_fd, "cgroup.subtree_control", O_WRONLY, where + "/cgroup.subtree_control"));
    if (::write(file.get(), request.data(), request.size()) >= 0) return {};
    if (errno == EBUSY)
        return fail_msg("cannot write \"" + request + "\" to " + where + "/cgroup.subtree_control: " + where +
                        " has processes of its own, and cgroup v2 hands controllers down only from a cgroup "
                        "without processes (the \"no internal processes\" rule, EBUSY); move them into a child "
                        "cgroup or choose another cgroupsPath");
    return fail_sys(errno, "write \"" + request + "\" to", where + "/cgroup.subtree_control");
}

}  // namespace

Result<void> enable_controllers(int root_fd, const CgroupLocation& cgroup,
                                const std::vector<std::string>& required, const std::vector<std::string>& best_effort) {
    for (const std::string& relative : ancestors(cgroup.path)) {
        std::string where = relative == "." ? cgroup.mount : cgroup.mount + "/" + relative;
        UniqueFd dir = TRY(open_fd_at(root_fd, relative, O_DIRECTORY | O_RDONLY | O_NOFOLLOW, where));
        auto available = split_words(TRY(read_cgroup_file(dir.get(), "cgroup.controllers", where)));
        auto enabled = split_words(TRY(read_cgroup_file(dir.get(), "cgroup.subtree_control", where)));

        std::vector<std::string> missing;
        for (const std::string& name : required) {
            if (list_contains(enabled, name)) continue;
            if (!list_contains(available, name))
                return fail_msg("cannot enable the " + name + " controller in " + where +
                                "/cgroup.subtree_control: it is not listed in " + where + "/cgroup.controllers");
            missing.push_back(name);
        }
        if (!missing.empty()) TRY(enable_required(dir.get(), where, missing));
        for (const std::string& name : best_effort) {
            if (list_contains(enabled, name) || list_contains(missing, name) || !list_contains(available, name))
                continue;
            (void)write_cgroup_file(dir.get(), "cgroup.subtree_control", "+" + name, where);
        }
    }
    return {};
}

}  // namespace husk::cgroup
