#include "container/exec_process.hpp"

#include <charconv>
#include <string_view>

namespace husk::container {
namespace {

Result<std::uint32_t> parse_id(std::string_view text, const char* what) {
    std::uint32_t value = 0;
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (text.empty() || ec != std::errc{} || end != text.data() + text.size())
        return fail_msg(std::string("--user: ") + what + " \"" + std::string(text) + "\" is not a number");
    return value;
}

// A later NAME=value replaces an earlier NAME (getenv(3) would see the first one).
void set_env(std::vector<std::string>& env, const std::string& entry) {
    std::string_view name = std::string_view(entry).substr(0, entry.find('='));
    for (auto& existing : env) {
        if (std::string_view(existing).substr(0, existing.find('=')) == name) {
            existing = entry;
            return;
        }
    }
    env.push_back(entry);
}

void add_cap(std::optional<std::vector<std::string>>& set, const std::string& cap) {
    if (!set) set.emplace();
    set->push_back(cap);
}

// runc's validateProcessSpec: what a process must have to be started at all.
Result<void> validate_process(const spec::Process& process) {
    if (process.args.empty()) return fail_msg("args must not be empty");
    if (process.cwd.empty()) return fail_msg("cwd property must not be empty");
    if (process.cwd[0] != '/') return fail_msg("cwd must be an absolute path");
    if (!process.selinux_label.empty()) return fail_msg("process.selinuxLabel: husk has no SELinux support");
    return {};
}

}  // namespace

Result<spec::Process> exec_process(const spec::Process& configured, const ExecOptions& options) {
    if (!options.process_label.empty()) return fail_msg("--process-label: husk has no SELinux support");
    if (options.process) {
        spec::Process process = *options.process;
        process.terminal = process.terminal || options.tty;
        if (!options.apparmor.empty()) process.apparmor_profile = options.apparmor;
        TRY(validate_process(process));
        return process;
    }
    if (options.args.empty()) return fail_msg("exec args cannot be empty");
    spec::Process process = configured;
    process.args = options.args;
    if (!options.cwd.empty()) process.cwd = options.cwd;
    for (const auto& cap : options.caps) {
        add_cap(process.capabilities.bounding, cap);
        add_cap(process.capabilities.effective, cap);
        add_cap(process.capabilities.permitted, cap);
        // An ambient capability needs the inheritable bit, which --cap does not add.
        if (process.capabilities.inheritable) add_cap(process.capabilities.ambient, cap);
    }
    for (const auto& entry : options.env) set_env(process.env, entry);
    process.terminal = options.tty;  // the container's terminal is init's: never inherited
    if (options.no_new_privs) process.no_new_privileges = true;
    if (!options.user.empty()) {
        std::string_view user = options.user;
        auto colon = user.find(':');
        process.user.uid = TRY(parse_id(user.substr(0, colon), "uid"));
        if (colon != std::string_view::npos) process.user.gid = TRY(parse_id(user.substr(colon + 1), "gid"));
    }
    if (options.additional_gids) process.user.additional_gids = *options.additional_gids;
    // runc's --apparmor: the profile of this process (the apparmor module refuses one the host cannot apply).
    if (!options.apparmor.empty()) process.apparmor_profile = options.apparmor;
    TRY(validate_process(process));
    return process;
}

Result<TerminalRoute> terminal_route(bool terminal, bool detach, const std::string& console_socket) {
    if (!terminal) return TerminalRoute::none;
    if (!console_socket.empty()) return TerminalRoute::socket;
    if (detach) return fail_msg("cannot allocate tty if husk will detach without setting console socket");
    return TerminalRoute::relay;
}

}  // namespace husk::container
