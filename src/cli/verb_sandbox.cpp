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

po::options_description sandbox_options() {
    po::options_description options;
    options.add_options()
        ("id", po::value<std::string>(), "container id (default: sandbox-<16 random hex digits>)")
        ("rootfs", po::value<std::string>(), "use this directory as the root, read-only, instead of the host view")
        ("bind", po::value<std::vector<std::string>>(), "SRC[:DST]: bind a host path read-only (repeatable)")
        ("bind-rw", po::value<std::vector<std::string>>(), "SRC[:DST]: bind a host path writable (repeatable)")
        ("cwd", po::value<std::string>()->default_value("/"), "working directory inside")
        ("env", po::value<std::vector<std::string>>(), "K=V: set a variable (repeatable; a later one wins)")
        ("clear-env", "start from an empty environment instead of PATH, HOME=/tmp and LANG=C.UTF-8 (the "
                       "caller's is never passed on)")
        ("net", po::value<std::string>()->default_value("none"), "none: a network namespace with only lo; "
                                                                  "host: the host's network (and /etc/resolv.conf, hosts)")
        ("no-userns", "no user namespace: the program runs as uid/gid 65534 of the host")
        ("seccomp", po::value<std::string>()->default_value("default"),
         "default: husk's profile (husk seccomp-profile); unconfined: none; FILE: a linux.seccomp JSON object")
        ("cap", po::value<std::vector<std::string>>(), "give the program a capability (NET_RAW or CAP_NET_RAW; "
                                                       "repeatable; all five sets)")
        ("print-config", "print the config.json the sandbox would run and exit 0 (it runs with husk run --bundle)");
    po::options_description limits = setting_options_description(
        "\nLimits (one flag each; a limit this host cannot enforce is refused, naming it; SIZES and exit statuses: "
        "husk(8))");
    limits.add_options()
        ("cpus", po::value<std::string>(), "CPU rate: N CPUs (0.5, 2; at least 0.01) (linux.resources.cpu quota/period; "
                                           "needs the cgroup v2 cpu controller)")
        ("memory", po::value<std::string>(), "memory limit (64m, 1GiB; SIZES) (linux.resources.memory.limit; needs "
                                             "the cgroup v2 memory controller)")
        ("pids", po::value<std::string>(), "process count limit (linux.resources.pids.limit; needs the pids controller)")
        ("nofile", po::value<std::string>(), "open-file limit, soft and hard (RLIMIT_NOFILE)")
        ("fsize", po::value<std::string>(), "largest file the program may write (1m; SIZES) (RLIMIT_FSIZE)")
        ("nproc", po::value<std::string>(), "processes and threads of the sandbox's user (RLIMIT_NPROC, soft and "
                                            "hard; default 1024, on every host)")
        ("tmp-size", po::value<std::string>(), "size of the /tmp tmpfs (SIZES; default 256m)")
        ("landlock-read", po::value<std::vector<std::string>>(),
         "PATH: with Landlock, allow reading and executing beneath PATH only, besides the system view (repeatable)")
        ("landlock-write", po::value<std::vector<std::string>>(),
         "PATH: with Landlock, allow every file access beneath PATH (repeatable)")
        ("landlock-connect", po::value<std::vector<std::string>>(),
         "PORT: with Landlock, allow TCP connect to PORT only (repeatable; Landlock ABI 4)");
    options.add(limits);
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
Result<spec::SandboxSettings> read_settings(const po::variables_map& vm) {
    spec::SandboxSettings settings;
    if (vm.count("rootfs")) settings.rootfs = vm["rootfs"].as<std::string>();
    for (const std::string& text : values_of<std::string>(vm, "bind"))
        settings.binds.push_back(TRY(spec::parse_sandbox_bind("bind", text, false)));
    for (const std::string& text : values_of<std::string>(vm, "bind-rw"))
        settings.binds.push_back(TRY(spec::parse_sandbox_bind("bind-rw", text, true)));
    settings.cwd = vm["cwd"].as<std::string>();
    if (settings.cwd.empty() || settings.cwd[0] != '/')
        return fail_msg("--cwd: want an absolute path inside the sandbox, not \"" + settings.cwd + "\"");
    // Never the caller's environment: it carries tokens and keys untrusted code must not see (bwrap and
    // firejail pass it on). A small fixed one instead, which --clear-env empties.
    if (!vm.count("clear-env"))
        settings.env = {std::string("PATH=") + spec::sandbox_default_path, "HOME=/tmp", "LANG=C.UTF-8"};
    for (const std::string& entry : values_of<std::string>(vm, "env")) {
        if (entry.find('=') == std::string::npos || entry[0] == '=')
            return fail_msg("--env: want K=V, not \"" + entry + "\"");
        settings.env.push_back(entry);
    }
    const std::string net = vm["net"].as<std::string>();
    if (net != "none" && net != "host") return fail_msg("--net: want none or host, not \"" + net + "\"");
    settings.net = net == "host" ? spec::SandboxNet::host : spec::SandboxNet::none;
    settings.userns = vm.count("no-userns") == 0;
    const std::string seccomp = vm["seccomp"].as<std::string>();
    if (seccomp == "unconfined") settings.seccomp = spec::SandboxSeccomp::unconfined;
    else settings.seccomp_json = seccomp == "default" ? default_seccomp_profile_json() : TRY(seccomp_file(seccomp));
    for (const std::string& cap : values_of<std::string>(vm, "cap")) settings.caps.push_back(capability_name(cap));
    settings.husk = TRY(read_setting_flags(vm));
    if (vm.count("cpus")) settings.cpus = TRY(cpus_flag(vm["cpus"].as<std::string>()));
    if (vm.count("memory")) {
        std::uint64_t memory = TRY(size_flag("memory", vm["memory"].as<std::string>()));
        if (memory > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()))
            return fail_msg("--memory: more than the kernel can count");
        settings.memory = static_cast<std::int64_t>(memory);
    }
    if (vm.count("pids"))
        settings.pids = static_cast<std::int64_t>(TRY(whole_number("pids", vm["pids"].as<std::string>(), 1, 1u << 22)));
    if (vm.count("nofile"))
        settings.nofile = TRY(whole_number("nofile", vm["nofile"].as<std::string>(), 1, 1u << 30));
    if (vm.count("fsize")) settings.fsize = TRY(size_flag("fsize", vm["fsize"].as<std::string>()));
    if (vm.count("nproc")) settings.nproc = TRY(whole_number("nproc", vm["nproc"].as<std::string>(), 1, 1u << 22));
    if (vm.count("tmp-size")) {
        settings.tmp_size = TRY(size_flag("tmp-size", vm["tmp-size"].as<std::string>()));
        if (settings.tmp_size < 1024) return fail_msg("--tmp-size: want at least 1k");
    }
    settings.landlock_read = values_of<std::string>(vm, "landlock-read");
    settings.landlock_write = values_of<std::string>(vm, "landlock-write");
    for (const char* flag : {"landlock-read", "landlock-write"})
        for (const std::string& path : values_of<std::string>(vm, flag))
            if (path.empty() || path[0] != '/')
                return fail_msg(std::string("--") + flag + ": want an absolute path inside the sandbox, not \"" +
                                path + "\"");
    for (const std::string& port : values_of<std::string>(vm, "landlock-connect"))
        settings.landlock_connect.push_back(static_cast<std::uint16_t>(TRY(whole_number("landlock-connect", port, 0, 65535))));
    return settings;
}

}  // namespace

int verb_sandbox(const Globals& globals, const Args& args) {
    const po::options_description options = sandbox_options();
    // The options end at "--" or at the program, the first word that is neither an option nor an option's value
    // ("--" ends them even where a value was due: that value is then missing, an error).
    const OptionsEnd end = end_of_options(args, option_takes_value(options), DashedValue::taken);
    const Args flags(args.begin(), args.begin() + static_cast<std::ptrdiff_t>(end.at));
    Args program(args.begin() + static_cast<std::ptrdiff_t>(std::min(end.first_operand(), args.size())), args.end());
    po::variables_map vm;
    int status = 0;
    std::string usage_error;
    if (!parse_verb("sandbox", "[options] [--] PROGRAM [ARGS...]", options, {}, flags, vm, &status,
                    &usage_error)) {
        if (status != 0) deliver_unparsed_refusal(globals, "sandbox", flags, usage_error, status);
        return status;
    }

    RunOptions run;
    std::string id = vm.count("id") ? vm["id"].as<std::string>() : "";
    // A refusal still delivers the one verdict the caller waits for; nothing exists yet.
    auto refuse = [&](const std::string& message) { return refuse_run(globals, "sandbox", run, id, message); };
    if (auto read = read_foreground_options(vm, run); !read) return refuse(read.error().message());
    if (program.empty()) return refuse("a program to run is required (husk sandbox [options] -- PROGRAM [ARGS...])");
    if (id.empty()) {
        auto generated = generated_id();
        if (!generated) return refuse(generated.error().message());
        id = *generated;
    }
    auto checked = checked_run_id(globals, "sandbox", run, id);
    if (!checked) return refusal_status;
    auto settings = read_settings(vm);
    if (!settings) return refuse(settings.error().message());
    settings->args = std::move(program);
    // A verdict path the program could write is refused, and no verdict goes there either.
    if (auto outside = check_sandbox_output({"--verdict", run.verdict.path}, *settings); !outside) {
        run.verdict.path.clear();
        return refuse(outside.error().message());
    }
    auto config = sandbox_config_json(globals.runtime, std::move(*settings), {{"--log", globals.log_file}});
    if (!config) return refuse(config.error().message());
    if (vm.count("print-config")) {
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
