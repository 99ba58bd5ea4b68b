// husk: a runc-compatible command line. Global options come before the verb (as containerd and conmon pass
// them); each verb parses its own flags in its own file.
#include <fcntl.h>
#include <seccomp.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <span>
#include <string>
#include <string_view>

#include "base/caller_file.hpp"
#include "base/readonly_self.hpp"
#include "base/subordinate_ids.hpp"
#include "base/trace.hpp"
#include "cli/cli.hpp"
#include "cli/raw_args.hpp"
#include "shim/server.hpp"

namespace husk::cli {
namespace {

constexpr const char* version = "0.1.0";

po::options_description global_options() {
    po::options_description options("Global options");
    options.add_options()
        ("root", po::value<std::string>(), "directory for container state (default /run/husk; without root "
                                           "$XDG_RUNTIME_DIR/husk, else ~/.local/state/husk)")
        ("log", po::value<std::string>(), "append errors (and --debug messages) to this file")
        ("log-format", po::value<std::string>()->default_value("text"), "text or json (runc's JSON lines)")
        ("message-fd", po::value<int>(), "write husk's own messages (errors, warnings) to the inherited fd N instead "
                                         "of stderr, apart from the container's stderr (husk(8) MESSAGES)")
        ("debug", "log debug messages")
        ("systemd-cgroup", "use the systemd cgroup manager (not available: husk has no systemd manager)")
        ("cgroup-manager", po::value<std::string>()->default_value("cgroupfs"), "cgroupfs, systemd or disabled")
        ("criu", po::value<std::string>(), "accepted for runc compatibility; husk has no checkpoint support")
        ("rootless", po::value<std::string>()->default_value("auto"), "runc's flag: husk runs rootless when its "
                                                                          "effective uid is not 0 (auto; true and false "
                                                                          "must agree)")
        ("version,v", "print the version")
        ("help,h", "show this help");
    return options;
}

void print_help(const po::options_description& options) {
    std::printf("husk: an OCI container runtime that records why containers stop\n\n"
                "Usage: husk [global options] COMMAND [command options] [arguments]\n\nCommands:\n");
    for (const Verb& verb : verbs()) std::printf("  %-16s %s\n", verb.name, verb.summary);
    std::printf("\n%s\nRun 'husk COMMAND --help' for a command's options.\n"
                "husk's own limits: create and run take --timeout, --kill-grace, --stop-signal, --output-limit and\n"
                "--cpu-limit (or the run.husk.* annotations they set); `husk state` says why a container stopped\n"
                "(husk.exit.reason) and what was in force (husk.security).\n",
                (std::ostringstream() << options).str().c_str());
}

void print_version() {
    const scmp_version* seccomp = seccomp_version();
    std::printf("husk version %s\nspec: 1.3.0\nlibseccomp: %u.%u.%u\n", version, seccomp->major, seccomp->minor,
                seccomp->micro);
}

// Index of the verb in argv: the first word that is neither an option nor the value of a global option that
// takes one (`--root DIR` as well as `--root=DIR`), or the word after "--". No allocation: it also runs before
// main (below), before the libraries are initialised.
int find_verb(int argc, char** argv) noexcept {
    static constexpr std::string_view with_value[] = {"--root", "--log", "--log-format", "--cgroup-manager", "--criu",
                                                      "--rootless", "--message-fd"};
    if (argc < 1) return argc;
    const auto takes_value = [](std::string_view spelling) noexcept {
        for (std::string_view option : with_value)
            if (spelling == option) return true;
        return false;
    };
    const std::span<char* const> words(argv + 1, static_cast<std::size_t>(argc - 1));
    return 1 + static_cast<int>(end_of_options(words, takes_value, DashedValue::taken).first_operand());
}

// create, run, sandbox and exec leave husk processes where a container can see them (init or the exec'd
// process before execve, the monitor in a shared pid namespace, `husk exec` itself while it waits): those
// must not run from a writable binary (CVE-2019-5736, which attacked runc through exec). The other verbs only
// read or signal a container from the host and run from wherever husk was started.
bool runs_where_a_container_sees_it(const char* verb) noexcept {
    for (const char* name : {"create", "run", "sandbox", "exec"})
        if (std::strcmp(verb, name) == 0) return true;
    return false;
}

// The binary's other name: containerd's runtime io.containerd.husk.v2 runs it as containerd-shim-husk-v2
// (docs/clients.md, "husk's own shim").
bool called_as_shim(int argc, char** argv) {
    if (argc < 1 || !argv[0]) return false;
    const char* slash = std::strrchr(argv[0], '/');
    return std::strcmp(slash ? slash + 1 : argv[0], "containerd-shim-husk-v2") == 0;
}
bool shim_starts(int argc, char** argv) { return argc > 1 && std::strcmp(argv[argc - 1], "start") == 0; }

// The first code husk runs, from the executable's .preinit_array: after the dynamic loader, before the
// libraries' static initialisers and main. The re-exec happens here, so the process that is thrown away
// pays for neither. If it fails, main tries again and reports the error (fail closed).
void before_libraries(int argc, char** argv, char** envp) noexcept {
    husk::trace::start(envp);
    husk::trace::mark("loaded");
    // containerd's shim: its `start` forks the serving shim, which creates and execs into every container.
    if (called_as_shim(argc, argv)) {
        if (shim_starts(argc, argv) && ::geteuid() == 0) (void)husk::reexec_from_readonly_self(argv, envp);
        return;
    }
    int verb = find_verb(argc, argv);
    if (verb < argc && runs_where_a_container_sees_it(argv[verb]) && ::geteuid() == 0)
        (void)husk::reexec_from_readonly_self(argv, envp);
}

// As root: the read-only mount (done before main already, before_libraries; again here only to report why it
// failed). Without root: the kernel's permission checks, or a sealed copy (docs/rootless.md).
husk::Result<void> protect_own_binary(char** argv) {
    if (::geteuid() == 0) return husk::reexec_from_readonly_self(argv, environ);
    std::vector<husk::IdRange> ranges =
        TRY(husk::subordinate_ids("/etc/subuid", husk::local_user(::geteuid()).name, ::geteuid()));
    return husk::protect_own_binary_without_root(::geteuid(), ranges, argv, environ);
}

__attribute__((section(".preinit_array"), used)) void (*const preinit)(int, char**, char**) = before_libraries;

Result<Globals> read_globals(const po::variables_map& vm) {
    Globals g;
    g.runtime.rootless = ::geteuid() != 0;
    g.runtime.root = vm.count("root") ? vm["root"].as<std::string>() : TRY(default_root(g.runtime.rootless));
    if (vm.count("log")) g.log_file = vm["log"].as<std::string>();
    std::string format = vm["log-format"].as<std::string>();
    if (format == "json") g.log_format = LogFormat::json;
    else if (format != "text") return fail_msg("--log-format: must be text or json, got \"" + format + "\"");
    g.debug = vm.count("debug") > 0;
    std::string rootless = vm["rootless"].as<std::string>();
    // runc's --rootless names a mode; husk's follows its effective uid (docs/rootless.md), and a mode that
    // disagrees with it is refused rather than half-honoured.
    if (rootless != "false" && rootless != "auto" && rootless != "true")
        return fail_msg("--rootless: must be true, false or auto, got \"" + rootless + "\"");
    if ((rootless == "true" && !g.runtime.rootless) || (rootless == "false" && g.runtime.rootless))
        return fail_msg("--rootless " + rootless + ": husk runs rootless exactly when its effective uid is not 0 "
                        "(it is " + std::to_string(::geteuid()) + ")");
    std::string manager = vm["cgroup-manager"].as<std::string>();
    if (vm.count("systemd-cgroup") || manager == "systemd")
        return fail_msg("the systemd cgroup manager is not available: husk manages cgroups itself "
                        "(use --cgroup-manager cgroupfs)");
    if (manager == "disabled") g.runtime.cgroup_manager = CgroupManager::disabled;
    else if (manager != "cgroupfs")
        return fail_msg("--cgroup-manager: must be cgroupfs, systemd or disabled, got \"" + manager + "\"");
    return g;
}

}  // namespace
}  // namespace husk::cli

int main(int argc, char** argv) {
    using namespace husk::cli;
    husk::trace::mark("main");
    if (called_as_shim(argc, argv)) {
        if (shim_starts(argc, argv)) {
            if (auto r = protect_own_binary(argv); !r) {
                std::fprintf(stderr, "containerd-shim-husk-v2: %s\n", r.error().message().c_str());
                return 1;
            }
        }
        return husk::shim::shim_main(argc, argv);
    }
    int verb_index = find_verb(argc, argv);
    po::options_description options = global_options();
    po::variables_map vm;
    try {
        po::store(po::command_line_parser(verb_index, argv).options(options).run(), vm);
        po::notify(vm);
    } catch (const po::error& e) {
        std::fprintf(stderr, "husk: %s\n", e.what());
        return 2;
    }
    if (vm.count("version")) {
        print_version();
        return 0;
    }
    if (vm.count("help") || verb_index == argc) {
        print_help(options);
        return 0;
    }
    // First, so that every message after it goes there.
    if (vm.count("message-fd")) {
        if (auto set = set_message_fd(vm["message-fd"].as<int>()); !set) {
            std::fprintf(stderr, "husk: %s\n", set.error().message().c_str());
            return 2;
        }
    }
    auto globals = read_globals(vm);
    // --log is written for each message, by a husk that is often root: a path another user could steer is refused
    // before anything runs, and nothing is written there (base/caller_file.hpp).
    if (globals && !globals->log_file.empty()) {
        if (auto target = husk::open_caller_file(globals->log_file, "--log"); !target) {
            std::fprintf(stderr, "husk: %s\n", target.error().message().c_str());
            return 2;
        }
    }
    if (!globals) {
        Globals fallback;
        if (vm.count("log")) fallback.log_file = vm["log"].as<std::string>();
        if (vm["log-format"].as<std::string>() == "json") fallback.log_format = LogFormat::json;
        return report(fallback, "", globals.error());
    }
    std::string name = argv[verb_index];
    if (runs_where_a_container_sees_it(name.c_str())) {
        if (auto r = protect_own_binary(argv); !r) return report(*globals, name, r.error());
    }
    // Inherited across the re-exec above; from here on, not by anything husk starts (hooks, the container).
    if (vm.count("message-fd") && vm["message-fd"].as<int>() > 2) ::fcntl(vm["message-fd"].as<int>(), F_SETFD, FD_CLOEXEC);
    Args args(argv + verb_index + 1, argv + argc);
    std::string command_line = name;
    for (const auto& arg : args) command_line += " " + arg;
    debug(*globals, "husk " + command_line + " (root " + globals->runtime.root + ")");
    husk::trace::mark("parsed");
    for (const Verb& verb : verbs())
        if (name == verb.name) return verb.main(*globals, args);
    report(*globals, "", husk::Error::msg("unknown command \"" + name + "\"; run 'husk --help'"));
    return 2;
}
