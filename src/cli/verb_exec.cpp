// husk exec [options] ID [COMMAND [ARGS...]]: runc's flags. Options end at the id: what follows is the
// command, whatever it looks like (`exec c1 sh -c 'echo hi'`).
#include <algorithm>
#include <cstdint>

#include "cli/cli.hpp"
#include "cli/raw_args.hpp"
#include "spec/parse.hpp"

#include "base/fs.hpp"

namespace husk::cli {
namespace {

po::options_description exec_options() {
    po::options_description options;
    options.add_options()
        ("process,p", po::value<std::string>(), "a runtime-spec process.json (the command and flags then do not apply)")
        ("tty,t", "allocate a pseudo-terminal (its master goes to --console-socket; without one, in the foreground, husk relays its own terminal)")
        ("console-socket", po::value<std::string>()->default_value(""), "unix socket that receives the pty master")
        ("cwd", po::value<std::string>()->default_value(""), "working directory in the container")
        ("env,e", po::value<std::vector<std::string>>(), "set an environment variable (NAME=value; repeatable)")
        ("user,u", po::value<std::string>()->default_value(""), "uid[:gid], numeric")
        ("additional-gids,g", po::value<std::vector<std::uint32_t>>(), "an additional gid (repeatable)")
        ("cap,c", po::value<std::vector<std::string>>(), "add a capability (CAP_NET_ADMIN; repeatable)")
        ("no-new-privs", "set no_new_privs")
        ("preserve-fds", po::value<int>()->default_value(0), "pass fds 3..3+N-1 to the process")
        ("pid-file", po::value<std::string>()->default_value(""), "write the process's host pid to this file")
        ("detach,d", "return once the process has started")
        ("ignore-paused", "exec into a paused container (the process runs when it is resumed)")
        ("cgroup", po::value<std::string>()->default_value(""), "a sub-cgroup of the container's to run in")
        ("process-label", po::value<std::string>()->default_value(""), "refused when set: husk has no SELinux support")
        ("apparmor", po::value<std::string>()->default_value(""), "the AppArmor profile of the process (refused where AppArmor is off)");
    return options;
}

}  // namespace

int verb_exec(const Globals& globals, const Args& args) {
    // The options end at the id, the first word that is neither an option nor an option's value (or the word
    // after "--"); Boost reads them and the id, and the rest is the command.
    const po::options_description options = exec_options();
    const std::size_t id_at = end_of_options(args, option_takes_value(options), DashedValue::taken).first_operand();
    Args flags(args.begin(), args.begin() + static_cast<std::ptrdiff_t>(std::min(id_at + 1, args.size())));
    po::positional_options_description positional;
    positional.add("id", 1);
    po::variables_map vm;
    int status = 0;
    if (!parse_verb("exec", "[options] ID [COMMAND [ARGS...]]", options, positional, flags, vm, &status))
        return status;
    ExecOptions exec;
    const std::string given = vm.count("id") ? vm["id"].as<std::string>() : "";
    if (given.empty()) {
        say("husk: exec: a container id is required\n");
        return 2;
    }
    if (id_at + 1 < args.size()) exec.args.assign(args.begin() + static_cast<std::ptrdiff_t>(id_at + 1), args.end());
    const std::string context = "exec " + given;
    // runc exits 255 when exec fails ("exec failed: ..."), so a failure never reads as the process's own code.
    auto failed = [&](const Error& error) {
        (void)report(globals, context, error);
        return 255;
    };
    auto id = ContainerId::parse(given);
    if (!id) return failed(id.error());
    if (vm.count("process")) {
        const std::string path = vm["process"].as<std::string>();
        auto text = read_file(path);
        if (!text) return failed(text.error());
        std::vector<std::string> unsupported;
        auto process = spec::parse_process_config(*text, unsupported);
        if (!process) return failed(Error::msg("--process " + path + ": " + process.error().message()));
        if (!unsupported.empty())
            return failed(Error::msg("--process " + path + ": " + unsupported.front() +
                                                       " is not supported by husk"));
        exec.process = std::move(*process);
    }
    exec.tty = vm.count("tty") > 0;
    exec.console_socket = vm["console-socket"].as<std::string>();
    exec.cwd = vm["cwd"].as<std::string>();
    exec.env = values_of<std::string>(vm, "env");
    exec.user = vm["user"].as<std::string>();
    if (vm.count("additional-gids")) exec.additional_gids = vm["additional-gids"].as<std::vector<std::uint32_t>>();
    exec.caps = values_of<std::string>(vm, "cap");
    exec.no_new_privs = vm.count("no-new-privs") > 0;
    exec.preserve_fds = vm["preserve-fds"].as<int>();
    if (exec.preserve_fds < 0) {
        say("husk: exec: --preserve-fds: %d is not a number of fds (0 or more)\n", exec.preserve_fds);
        return 2;
    }
    exec.pid_file = vm["pid-file"].as<std::string>();
    exec.detach = vm.count("detach") > 0;
    exec.ignore_paused = vm.count("ignore-paused") > 0;
    exec.cgroup = vm["cgroup"].as<std::string>();
    exec.process_label = vm["process-label"].as<std::string>();
    exec.apparmor = vm["apparmor"].as<std::string>();
    exec.warn = [&](const std::string& message) { warn(globals, context + ": " + message); };
    auto result = exec_container(globals.runtime, *id, exec);
    if (!result) return failed(result.error());
    return result->exit_code;
}

}  // namespace husk::cli
