#include "cli/create_options.hpp"

#include <limits>
#include <string>

#include "spec/annotations.hpp"

namespace husk::cli {
namespace {

// The flags that set husk's own annotations (docs/husk.8.md, "LIMITS"); a flag replaces the same annotation in
// config.json.
struct LimitFlag {
    const char* flag;
    const char* annotation;
};
constexpr LimitFlag limit_flags[] = {
    {"timeout", "run.husk.timeout"},
    {"kill-grace", "run.husk.kill-grace"},
    {"stop-signal", "run.husk.stop-signal"},
    {"output-limit", "run.husk.output-limit"},
    {"cpu-limit", "run.husk.cpu-limit"},
    {"tenant", "run.husk.tenant"},
    {"net-ops", "run.husk.net-ops"},
};

// Checked by the annotation parser itself, so a flag accepts exactly what the annotation does; the message
// names the flag instead of the annotation.
Result<void> check_limit_flag(const LimitFlag& limit, const std::string& value) {
    spec::HuskAnnotations ignored;
    auto parsed = spec::parse_husk_annotation(limit.annotation, value, ignored);
    if (parsed) return {};
    return fail_msg(std::string("--") + limit.flag + ": " + parsed.error().message());
}

}  // namespace

po::options_description limit_options_description(const std::string& caption) {
    po::options_description limits(caption);
    limits.add_options()
        ("timeout", po::value<std::string>(), "wall-time limit counted from start (500ms, 30s, 2m, 1h; > 0): "
                                              "then the stop signal, and after the grace the whole container is killed; "
                                              "state says reason \"timeout\" (run.husk.timeout)")
        ("kill-grace", po::value<std::string>(), "time between the stop signal and the kill (default 5s; 0 = kill at "
                                                 "once) (run.husk.kill-grace)")
        ("stop-signal", po::value<std::string>(), "first signal at the deadline (default SIGTERM) "
                                                  "(run.husk.stop-signal)")
        ("output-limit", po::value<std::string>(), "cap on stdout+stderr bytes together (4096, 64k, 10MiB; > 0; see SIZES in husk(8)): "
                                                   "husk pumps the output, delivers exactly up to the cap, then kills "
                                                   "the container; reason \"output-limit\" (run.husk.output-limit)")
        ("cpu-limit", po::value<std::string>(), "CPU-time budget of the whole cgroup counted from start (1.5s, 2m; "
                                                "> 0): then the container is killed; reason \"cpu-limit\" "
                                                "(run.husk.cpu-limit)")
        ("tenant", po::value<std::string>(), "charge the run to this tenant's ledger (husk tenant set): refused "
                                             "with reason \"tenant-quota\" when the tenant has used up a ceiling, "
                                             "else --cpu-limit, --timeout and --output-limit are clamped to what it "
                                             "has left (run.husk.tenant; docs/tenants.md)")
        ("net-allow", po::value<std::vector<std::string>>(), "CIDR[:PORT] or none: the only TCP/UDP destinations the "
                                                             "container may connect or send to (10.0.0.1/32:53, "
                                                             "[fd00::/8]:443; repeatable; everything else, DNS "
                                                             "included, gets EPERM; cgroup BPF) (run.husk.net-allow; "
                                                             "docs/network-policy.md)")
        ("net-ops", po::value<std::string>(), "budget of outgoing connects and addressed sends (> 0); past it they "
                                              "fail with EPERM (run.husk.net-ops)")
        ("net-ops-kill", "stop the container at the first network operation past --net-ops; reason "
                         "\"network-limit\" (run.husk.net-ops-kill)");
    return limits;
}

po::options_description create_options_description() {
    po::options_description options;
    options.add_options()
        ("bundle,b", po::value<std::string>()->default_value(""), "bundle directory (default: the current directory)")
        ("config,f", po::value<std::string>()->default_value(""), "config file, relative to the bundle (default: config.json)")
        ("pid-file", po::value<std::string>()->default_value(""), "write init's host pid to this file")
        ("console-socket", po::value<std::string>()->default_value(""), "unix socket that receives the pty master (process.terminal)")
        ("no-pivot", "use MS_MOVE + chroot instead of pivot_root (for a rootfs on ramfs)")
        ("no-new-keyring", "do not create a session keyring (husk never does)")
        ("preserve-fds", po::value<int>()->default_value(0), "pass fds 3..3+N-1 to the container")
        ("die-with-parent", "when the process that started husk dies (even of SIGKILL), kill the container at once "
                            "(also when husk itself dies); run deletes it, create leaves it stopped with its verdict "
                            "for state until delete or gc");
    options.add(limit_options_description(
        "\nhusk's limits (each sets its run.husk.* annotation and wins over the same annotation in config.json)"));
    return options;
}

Result<CreateOptions> read_create_options(const po::variables_map& vm) {
    CreateOptions create;
    if (vm.count("id")) create.id = vm["id"].as<std::string>();
    create.bundle = vm["bundle"].as<std::string>();
    create.config = vm["config"].as<std::string>();
    create.pid_file = vm["pid-file"].as<std::string>();
    create.console_socket = vm["console-socket"].as<std::string>();
    create.no_pivot = vm.count("no-pivot") > 0;
    create.no_new_keyring = vm.count("no-new-keyring") > 0;
    create.die_with_parent = vm.count("die-with-parent") > 0;
    create.preserve_fds = vm["preserve-fds"].as<int>();
    // runc's flag is unsigned, so "-1" is a usage error there; here it used to wrap below fd 3. The top
    // keeps 3 + N within an int.
    if (create.preserve_fds < 0 || create.preserve_fds > std::numeric_limits<int>::max() - 3)
        return fail_msg("--preserve-fds: " + std::to_string(create.preserve_fds) +
                        " is not a number of fds (0 or more)");
    TRY(read_limit_flags(vm, create.annotations));
    return create;
}

Result<void> read_limit_flags(const po::variables_map& vm, std::map<std::string, std::string>& annotations) {
    for (const LimitFlag& limit : limit_flags) {
        if (!vm.count(limit.flag)) continue;
        const std::string& value = vm[limit.flag].as<std::string>();
        TRY(check_limit_flag(limit, value));
        annotations[limit.annotation] = value;
    }
    // Repeatable: the entries join into the annotation's comma-separated list.
    if (vm.count("net-allow")) {
        std::string joined;
        for (const std::string& entry : vm["net-allow"].as<std::vector<std::string>>())
            joined += (joined.empty() ? "" : ",") + entry;
        TRY(check_limit_flag({"net-allow", "run.husk.net-allow"}, joined));
        annotations["run.husk.net-allow"] = joined;
    }
    if (vm.count("net-ops-kill")) annotations["run.husk.net-ops-kill"] = "true";
    return {};
}

}  // namespace husk::cli
