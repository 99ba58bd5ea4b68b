#include "process/workload.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

namespace husk::process {
namespace {

// runc's default when the container's environment has no PATH.
constexpr const char* default_path = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";

std::string container_path(const std::vector<std::string>& env) {
    for (const auto& entry : env)
        if (entry.rfind("PATH=", 0) == 0) return entry.substr(5);
    return default_path;
}

}  // namespace

Result<WorkloadPlan> prepare_workload(const spec::Spec& spec, int preserve_fds) {
    const spec::Process& process = *spec.process;
    WorkloadPlan plan;
    plan.args = process.args;
    plan.env = process.env;
    for (auto& a : plan.args) plan.argv.push_back(a.data());
    plan.argv.push_back(nullptr);
    for (auto& e : plan.env) plan.envp.push_back(e.data());
    plan.envp.push_back(nullptr);

    const std::string& name = process.args.at(0);
    if (name.find('/') != std::string::npos) {
        plan.candidates.push_back(name);
        plan.not_found = Error::sys(ENOENT, "exec: \"" + name + "\": stat " + name);
    } else {
        std::string path = container_path(process.env);
        std::size_t start = 0;
        while (start <= path.size()) {
            std::size_t end = path.find(':', start);
            if (end == std::string::npos) end = path.size();
            // An empty PATH element means the current directory.
            std::string dir = end > start ? path.substr(start, end - start) : std::string(".");
            plan.candidates.push_back(dir + "/" + name);
            start = end + 1;
        }
        plan.not_found = Error::msg("exec: \"" + name + "\": executable file not found in $PATH");
    }
    plan.cwd = process.cwd;
    plan.no_new_privileges = process.no_new_privileges;
    plan.terminal = process.terminal;
    if (process.console_size) {
        plan.console_rows = static_cast<unsigned short>(process.console_size->height);
        plan.console_columns = static_cast<unsigned short>(process.console_size->width);
    }
    plan.preserve_fds = preserve_fds;
    return plan;
}

Result<const char*> find_executable(const WorkloadPlan& plan) noexcept {
    int last_error = ENOENT;
    for (const auto& candidate : plan.candidates) {
        struct stat st {};
        if (::stat(candidate.c_str(), &st) != 0) {
            last_error = errno;
            continue;
        }
        if (!S_ISREG(st.st_mode) || ::faccessat(AT_FDCWD, candidate.c_str(), X_OK, AT_EACCESS) != 0) {
            last_error = EACCES;
            continue;
        }
        return candidate.c_str();
    }
    Error e = plan.not_found;
    if (e.err != 0) e.err = last_error;  // an explicit path: say why (ENOENT, EACCES, ...)
    return std::unexpected(e);
}

}  // namespace husk::process
