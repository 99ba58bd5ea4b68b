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

constexpr Option exec_options[] = {
    {"process", 'p', Takes::text, "a runtime-spec process.json (the command and flags then do not apply)"},
    {"tty", 't', Takes::nothing, "allocate a pseudo-terminal (its master goes to --console-socket; without one, in the "
                                 "foreground, husk relays its own terminal)"},
    {"console-socket", 0, Takes::text, "unix socket that receives the pty master", ""},
    {"cwd", 0, Takes::text, "working directory in the container", ""},
    {"env", 'e', Takes::texts, "set an environment variable (NAME=value; repeatable)"},
    {"user", 'u', Takes::text, "uid[:gid], numeric", ""},
    {"additional-gids", 'g', Takes::uint32_numbers, "an additional gid (repeatable)"},
    {"cap", 'c', Takes::texts, "add a capability (CAP_NET_ADMIN; repeatable)"},
    {"no-new-privs", 0, Takes::nothing, "set no_new_privs"},
    {"preserve-fds", 0, Takes::int_number, "pass fds 3..3+N-1 to the process", "0"},
    {"pid-file", 0, Takes::text, "write the process's host pid to this file", ""},
    {"detach", 'd', Takes::nothing, "return once the process has started"},
    {"ignore-paused", 0, Takes::nothing, "exec into a paused container (the process runs when it is resumed)"},
    {"cgroup", 0, Takes::text, "a sub-cgroup of the container's to run in", ""},
    {"process-label", 0, Takes::text, "refused when set: husk has no SELinux support", ""},
    {"apparmor", 0, Takes::text, "the AppArmor profile of the process (refused where AppArmor is off)", ""},
};

}  // namespace

int verb_exec(const Globals& globals, const Args& args) {
    // The options end at the id, the first word that is neither an option nor an option's value (or the word
    // after "--"); the parser reads them and the id, and the rest is the command.
    OptionSet options;
    options.add(exec_options);
    const std::size_t id_at = end_of_options(args, option_takes_value(options), DashedValue::taken).first_operand();
    Args flags(args.begin(), args.begin() + static_cast<std::ptrdiff_t>(std::min(id_at + 1, args.size())));
    OptionValues values;
    int status = 0;
    if (!parse_verb("exec", "[options] ID [COMMAND [ARGS...]]", options, {"id"}, flags, values, &status)) return status;
    ExecOptions exec;
    const std::string given = values.text("id");
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
    if (values.has("process")) {
        const std::string path = values.text("process");
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
    exec.tty = values.has("tty");
    exec.console_socket = values.text("console-socket");
    exec.cwd = values.text("cwd");
    exec.env = values.texts("env");
    exec.user = values.text("user");
    if (values.has("additional-gids")) exec.additional_gids = values.uint32_numbers("additional-gids");
    exec.caps = values.texts("cap");
    exec.no_new_privs = values.has("no-new-privs");
    exec.preserve_fds = values.int_number("preserve-fds");
    if (exec.preserve_fds < 0) {
        say("husk: exec: --preserve-fds: %d is not a number of fds (0 or more)\n", exec.preserve_fds);
        return 2;
    }
    exec.pid_file = values.text("pid-file");
    exec.detach = values.has("detach");
    exec.ignore_paused = values.has("ignore-paused");
    exec.cgroup = values.text("cgroup");
    exec.process_label = values.text("process-label");
    exec.apparmor = values.text("apparmor");
    exec.warn = [&](const std::string& message) { warn(globals, context + ": " + message); };
    auto result = exec_container(globals.runtime, *id, exec);
    if (!result) return failed(result.error());
    return result->exit_code;
}

}  // namespace husk::cli
