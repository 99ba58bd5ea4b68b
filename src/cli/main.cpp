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

constexpr Option global_options[] = {
    {"root", 0, Takes::text, "directory for container state (default /run/husk; without root $XDG_RUNTIME_DIR/husk, "
                             "else ~/.local/state/husk)"},
    {"log", 0, Takes::text, "append errors (and --debug messages) to this file"},
    {"log-format", 0, Takes::text, "text or json (runc's JSON lines)", "text"},
    {"message-fd", 0, Takes::int_number, "write husk's own messages (errors, warnings) to the inherited fd N instead "
                                         "of stderr, apart from the container's stderr (husk(8) MESSAGES)"},
    {"debug", 0, Takes::nothing, "log debug messages"},
    {"systemd-cgroup", 0, Takes::nothing,
     "use the systemd cgroup manager (not available: husk has no systemd manager)"},
    {"cgroup-manager", 0, Takes::text, "cgroupfs, systemd or disabled", "cgroupfs"},
    {"criu", 0, Takes::text, "accepted for runc compatibility; husk has no checkpoint support"},
    {"rootless", 0, Takes::text, "runc's flag: husk runs rootless when its effective uid is not 0 (auto; true and "
                                 "false must agree)", "auto"},
    {"version", 'v', Takes::nothing, "print the version"},
    {"help", 'h', Takes::nothing, "show this help"},
};

void print_help() {
    std::printf("husk: an OCI container runtime that records why containers stop\n\n"
                "Usage: husk [global options] COMMAND [command options] [arguments]\n\nCommands:\n");
    for (const Verb& verb : verbs()) std::printf("  %-16s %s\n", verb.name, verb.summary);
    std::printf("\n%s\nRun 'husk COMMAND --help' for a command's options.\n"
                "husk's own limits: create and run take --timeout, --kill-grace, --stop-signal, --output-limit and\n"
                "--cpu-limit (or the run.husk.* annotations they set); `husk state` says why a container stopped\n"
                "(husk.exit.reason) and what was in force (husk.security).\n",
                OptionSet("Global options").add(global_options).help().c_str());
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

Result<Globals> read_globals(const OptionValues& values) {
    Globals g;
    g.runtime.rootless = ::geteuid() != 0;
    g.runtime.root = values.has("root") ? values.text("root") : TRY(default_root(g.runtime.rootless));
    g.log_file = values.text("log");
    std::string format = values.text("log-format");
    if (format == "json") g.log_format = LogFormat::json;
    else if (format != "text") return fail_msg("--log-format: must be text or json, got \"" + format + "\"");
    g.debug = values.has("debug");
    std::string rootless = values.text("rootless");
    // runc's --rootless names a mode; husk's follows its effective uid (docs/rootless.md), and a mode that
    // disagrees with it is refused rather than half-honoured.
    if (rootless != "false" && rootless != "auto" && rootless != "true")
        return fail_msg("--rootless: must be true, false or auto, got \"" + rootless + "\"");
    if ((rootless == "true" && !g.runtime.rootless) || (rootless == "false" && g.runtime.rootless))
        return fail_msg("--rootless " + rootless + ": husk runs rootless exactly when its effective uid is not 0 "
                        "(it is " + std::to_string(::geteuid()) + ")");
    std::string manager = values.text("cgroup-manager");
    if (values.has("systemd-cgroup") || manager == "systemd")
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
    // Words after "--" among the global options are dropped, as Boost (given no positional names) dropped them.
    const Args global_words(argv + std::min(1, argc), argv + verb_index);
    auto parsed = parse_options({global_options}, {.extra = Operands::Extra::ignored}, global_words);
    if (!parsed) {
        std::fprintf(stderr, "husk: %s\n", parsed.error().message().c_str());
        return 2;
    }
    const OptionValues& values = *parsed;
    if (values.has("version")) {
        print_version();
        return 0;
    }
    if (values.has("help") || verb_index == argc) {
        print_help();
        return 0;
    }
    // First, so that every message after it goes there.
    if (values.has("message-fd")) {
        if (auto set = set_message_fd(values.int_number("message-fd")); !set) {
            std::fprintf(stderr, "husk: %s\n", set.error().message().c_str());
            return 2;
        }
    }
    auto globals = read_globals(values);
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
        fallback.log_file = values.text("log");
        if (values.text("log-format") == "json") fallback.log_format = LogFormat::json;
        return report(fallback, "", globals.error());
    }
    std::string name = argv[verb_index];
    if (runs_where_a_container_sees_it(name.c_str())) {
        if (auto r = protect_own_binary(argv); !r) return report(*globals, name, r.error());
    }
    // Inherited across the re-exec above; from here on, not by anything husk starts (hooks, the container).
    if (values.has("message-fd") && values.int_number("message-fd") > 2)
        ::fcntl(values.int_number("message-fd"), F_SETFD, FD_CLOEXEC);
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
