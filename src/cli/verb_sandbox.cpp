// husk sandbox [OPTIONS] -- PROGRAM [ARGS...]: one command to run untrusted code (docs/husk.8.md, SANDBOX).
// The flags become spec::SandboxSettings, the container layer turns them into config.json text, and that text
// runs through `husk run`'s foreground path (same parse, validation, monitor, verdict, cancel), after which the
// container is deleted. Options end at "--" or at the first word that is not an option: the program.
#include <sys/random.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <utility>

#include "base/fs.hpp"
#include "base/json_tree.hpp"
#include "base/size.hpp"
#include "cli/cli.hpp"
#include "cli/create_options.hpp"
#include "cli/foreground_options.hpp"
#include "cli/raw_args.hpp"
#include "cli/resource_flags.hpp"
#include "spec/sandbox_config.hpp"

namespace husk::cli {
namespace {

OptionSet sandbox_options() {
    static constexpr Option own[] = {
        {"id", 0, Takes::text, "container id (default: sandbox-<16 random hex digits>)"},
        {"rootfs", 0, Takes::text, "use this directory as the root, read-only, instead of the host view"},
        {"bind", 0, Takes::texts, "SRC[:DST]: bind a host path read-only (repeatable)"},
        {"bind-rw", 0, Takes::texts, "SRC[:DST]: bind a host path writable (repeatable)"},
        {"cwd", 0, Takes::text, "working directory inside", "/"},
        {"env", 0, Takes::texts, "K=V: set a variable (repeatable; a later one wins)"},
        {"clear-env", 0, Takes::nothing, "start from an empty environment instead of PATH, HOME=/tmp and LANG=C.UTF-8 "
                                         "(the caller's is never passed on)"},
        {"net", 0, Takes::text, "none: a network namespace with only lo; host: the host's network (and "
                                "/etc/resolv.conf, hosts)", "none"},
        {"no-userns", 0, Takes::nothing, "no user namespace: the program runs as uid/gid 65534 of the host"},
        {"seccomp", 0, Takes::text, "default: husk's profile (husk seccomp-profile); unconfined: none; FILE: a "
                                    "linux.seccomp JSON object", "default"},
        {"cap", 0, Takes::texts, "give the program a capability (NET_RAW or CAP_NET_RAW; repeatable; all five sets)"},
        {"print-config", 0, Takes::nothing, "print the config.json the sandbox would run and exit 0 (it runs with husk "
                                            "run --bundle)"},
    };
    static constexpr Option limits[] = {
        {"cpus", 0, Takes::text, "CPU rate: N CPUs (0.5, 2; at least 0.01) (linux.resources.cpu quota/period; needs "
                                 "the cgroup v2 cpu controller)"},
        {"memory", 0, Takes::text, "memory limit (64m, 1GiB; SIZES) (linux.resources.memory.limit; needs the cgroup "
                                   "v2 memory controller)"},
        {"pids", 0, Takes::text, "process count limit (linux.resources.pids.limit; needs the pids controller)"},
        {"nofile", 0, Takes::text, "open-file limit, soft and hard (RLIMIT_NOFILE)"},
        {"fsize", 0, Takes::text, "largest file the program may write (1m; SIZES) (RLIMIT_FSIZE)"},
        {"nproc", 0, Takes::text, "processes and threads of the sandbox's user (RLIMIT_NPROC, soft and hard; default "
                                  "1024, on every host)"},
        {"tmp-size", 0, Takes::text, "size of the /tmp tmpfs (SIZES; default 256m)"},
        {"landlock-read", 0, Takes::texts, "PATH: with Landlock, allow reading and executing beneath PATH only, "
                                           "besides the system view (repeatable)"},
        {"landlock-write", 0, Takes::texts, "PATH: with Landlock, allow every file access beneath PATH (repeatable)"},
        {"landlock-connect", 0, Takes::texts, "PORT: with Landlock, allow TCP connect to PORT only (repeatable; "
                                              "Landlock ABI 4)"},
    };
    OptionSet options;
    options.add(own);
    add_setting_options(options, "\nLimits (one flag each; a limit this host cannot enforce is refused, naming it; "
                                 "SIZES and exit statuses: husk(8))");
    options.add_to_group(limits);
    add_foreground_options(options);
    return options;
}

// A unique valid id: 64 random bits; a collision would make create refuse, never share a container.
Result<std::string> generated_id() {
    unsigned char bytes[8];
    if (::getrandom(bytes, sizeof bytes, 0) != static_cast<ssize_t>(sizeof bytes)) return fail_sys(errno, "getrandom");
    std::string id = "sandbox-";
    for (unsigned char byte : bytes) {
        static constexpr char hex[] = "0123456789abcdef";
        id += hex[byte >> 4];
        id += hex[byte & 15];
    }
    return id;
}

std::string capability_name(std::string name) {
    for (char& c : name) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    return name.starts_with("CAP_") ? name : "CAP_" + name;
}

Result<std::string> seccomp_file(const std::string& path) {
    auto text = read_file(path, max_json_bytes);
    if (!text) return fail(text.error().context("--seccomp"));
    auto tree = parse_json_tree(*text);
    if (!tree) return fail_msg("--seccomp " + path + ": " + tree.error().message());
    if (!tree->get().is_object()) return fail_msg("--seccomp " + path + ": want a linux.seccomp JSON object");
    return *text;
}

// Every flag into settings; an error names the flag.
Result<spec::SandboxSettings> read_settings(const OptionValues& values) {
    spec::SandboxSettings settings;
    settings.pretty = values.has("print-config");
    if (values.has("rootfs")) settings.rootfs = values.text("rootfs");
    for (const std::string& text : values.texts("bind"))
        settings.binds.push_back(TRY(spec::parse_sandbox_bind("bind", text, false)));
    for (const std::string& text : values.texts("bind-rw"))
        settings.binds.push_back(TRY(spec::parse_sandbox_bind("bind-rw", text, true)));
    settings.cwd = values.text("cwd");
    if (settings.cwd.empty() || settings.cwd[0] != '/')
        return fail_msg("--cwd: want an absolute path inside the sandbox, not \"" + settings.cwd + "\"");
    // Never the caller's environment: it carries tokens and keys untrusted code must not see (bwrap and
    // firejail pass it on). A small fixed one instead, which --clear-env empties.
    if (!values.has("clear-env"))
        settings.env = {std::string("PATH=") + spec::sandbox_default_path, "HOME=/tmp", "LANG=C.UTF-8"};
    for (const std::string& entry : values.texts("env")) {
        if (entry.find('=') == std::string::npos || entry[0] == '=')
            return fail_msg("--env: want K=V, not \"" + entry + "\"");
        settings.env.push_back(entry);
    }
    const std::string net = values.text("net");
    if (net != "none" && net != "host") return fail_msg("--net: want none or host, not \"" + net + "\"");
    settings.net = net == "host" ? spec::SandboxNet::host : spec::SandboxNet::none;
    settings.userns = !values.has("no-userns");
    const std::string seccomp = values.text("seccomp");
    if (seccomp == "unconfined") settings.seccomp = spec::SandboxSeccomp::unconfined;
    else settings.seccomp_json = seccomp == "default" ? default_seccomp_profile_json(settings.pretty) : TRY(seccomp_file(seccomp));
    for (const std::string& cap : values.texts("cap")) settings.caps.push_back(capability_name(cap));
    settings.husk = TRY(read_setting_flags(values));
    if (values.has("cpus")) settings.cpus = TRY(cpus_flag(values.text("cpus")));
    if (values.has("memory")) {
        std::uint64_t memory = TRY(size_flag("memory", values.text("memory")));
        if (memory > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()))
            return fail_msg("--memory: more than the kernel can count");
        settings.memory = static_cast<std::int64_t>(memory);
    }
    if (values.has("pids"))
        settings.pids = static_cast<std::int64_t>(TRY(whole_number("pids", values.text("pids"), 1, 1u << 22)));
    if (values.has("nofile"))
        settings.nofile = TRY(whole_number("nofile", values.text("nofile"), 1, 1u << 30));
    if (values.has("fsize")) settings.fsize = TRY(size_flag("fsize", values.text("fsize")));
    if (values.has("nproc")) settings.nproc = TRY(whole_number("nproc", values.text("nproc"), 1, 1u << 22));
    if (values.has("tmp-size")) {
        settings.tmp_size = TRY(size_flag("tmp-size", values.text("tmp-size")));
        if (settings.tmp_size < 1024) return fail_msg("--tmp-size: want at least 1k");
    }
    settings.landlock_read = values.texts("landlock-read");
    settings.landlock_write = values.texts("landlock-write");
    for (const char* flag : {"landlock-read", "landlock-write"})
        for (const std::string& path : values.texts(flag))
            if (path.empty() || path[0] != '/')
                return fail_msg(std::string("--") + flag + ": want an absolute path inside the sandbox, not \"" +
                                path + "\"");
    for (const std::string& port : values.texts("landlock-connect"))
        settings.landlock_connect.push_back(static_cast<std::uint16_t>(TRY(whole_number("landlock-connect", port, 0, 65535))));
    return settings;
}

}  // namespace

int verb_sandbox(const Globals& globals, const Args& args) {
    const OptionSet options = sandbox_options();
    // The options end at "--" or at the program, the first word that is neither an option nor an option's value
    // ("--" ends them even where a value was due: that value is then missing, an error).
    const OptionsEnd end = end_of_options(args, option_takes_value(options), DashedValue::taken);
    const Args flags(args.begin(), args.begin() + static_cast<std::ptrdiff_t>(end.at));
    Args program(args.begin() + static_cast<std::ptrdiff_t>(std::min(end.first_operand(), args.size())), args.end());
    OptionValues values;
    int status = 0;
    std::string usage_error;
    if (!parse_verb("sandbox", "[options] [--] PROGRAM [ARGS...]", options, {}, flags, values, &status,
                    &usage_error)) {
        if (status != 0) deliver_unparsed_refusal(globals, "sandbox", flags, usage_error, status);
        return status;
    }

    RunOptions run;
    std::string id = values.text("id");
    // A refusal still delivers the one verdict the caller waits for; nothing exists yet.
    auto refuse = [&](const std::string& message) { return refuse_run(globals, "sandbox", run, id, message); };
    if (auto read = read_foreground_options(values, run); !read) return refuse(read.error().message());
    if (program.empty()) return refuse("a program to run is required (husk sandbox [options] -- PROGRAM [ARGS...])");
    if (id.empty()) {
        auto generated = generated_id();
        if (!generated) return refuse(generated.error().message());
        id = *generated;
    }
    auto checked = checked_run_id(globals, "sandbox", run, id);
    if (!checked) return refusal_status;
    auto settings = read_settings(values);
    if (!settings) return refuse(settings.error().message());
    settings->args = std::move(program);
    // A verdict path the program could write is refused, and no verdict goes there either.
    if (auto outside = check_sandbox_output({"--verdict", run.verdict.path}, *settings); !outside) {
        run.verdict.path.clear();
        return refuse(outside.error().message());
    }
    auto config = sandbox_config_json(globals.runtime, std::move(*settings), {{"--log", globals.log_file}});
    if (!config) return refuse(config.error().message());
    if (values.has("print-config")) {
        std::fputs(config->c_str(), stdout);
        return 0;
    }
    run.create.bundle = "/";  // every path of the config is absolute; the record names no bundle of the caller's
    run.create.config_text = std::move(*config);
    run.create.seccomp_cache = true;
    run.create.warn = [&](const std::string& message) { warn(globals, "sandbox " + id + ": " + message); };
    auto result = run_container(globals.runtime, *checked, run);
    if (!result) {
        report(globals, "sandbox " + id, result.error());
        return error_status(result.error());
    }
    for (const auto& warning : result->warnings) warn(globals, "sandbox " + id + ": " + warning);
    if (!result->failure.empty()) report(globals, "sandbox " + id, Error::msg(result->failure));
    return result->exit_code;
}

}  // namespace husk::cli
