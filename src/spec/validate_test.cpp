#include "spec/validate.hpp"

#include <catch2/catch.hpp>
#include <string>

#include "spec/default_spec.hpp"
#include "spec/parse.hpp"

namespace {

using husk::spec::Spec;

// runc's default spec: valid, with uts/pid/network/ipc/mount namespaces and a hostname.
Spec valid_spec() { return husk::spec::parse_config(husk::spec::default_spec_json()).value(); }

std::string error_of(const Spec& spec) {
    auto result = husk::spec::validate(spec);
    REQUIRE_FALSE(result);
    return result.error().message();
}

}  // namespace

TEST_CASE("validate accepts ociVersion 1.0.x to 1.3.x with pre-release suffixes", "[spec]") {
    Spec spec = valid_spec();
    for (const char* version : {"1.0.0", "1.0.2-dev", "1.1.0", "1.1.0-rc.1", "1.2.1", "1.3.0", "1.3.10", "1.0.0+build"}) {
        spec.oci_version = version;
        CHECK(husk::spec::validate(spec));
    }
    for (const char* version : {"0.5.0-dev", "2.0.0", "1.4.0", "1.10.0", "1.0", "1.0.01", "1.0.x", "1.0.0-", "v1.0.0"}) {
        spec.oci_version = version;
        CHECK(error_of(spec) == "ociVersion: unsupported version \"" + std::string(version) +
                                    "\" (husk supports 1.0.x to 1.3.x)");
    }
    spec.oci_version = "";
    CHECK(error_of(spec) == "ociVersion: must not be empty");
}

TEST_CASE("validate refuses unsupported features, listing all of them", "[spec]") {
    Spec spec = valid_spec();
    spec.unsupported = {"linux.seccomp", "process.scheduler"};
    CHECK(error_of(spec) ==
          "unsupported configuration: linux.seccomp, process.scheduler (husk does not implement these yet)");
    spec.unsupported = {"linux.intelRdt"};
    CHECK(error_of(spec) == "unsupported configuration: linux.intelRdt (husk does not implement this yet)");
}

TEST_CASE("validate refuses SELinux labels husk cannot apply, and leaves AppArmor profiles to the apparmor module",
          "[spec]") {
    Spec spec = valid_spec();
    spec.process->apparmor_profile = "docker-default";
    CHECK(husk::spec::validate(spec));
    spec = valid_spec();
    spec.process->selinux_label = "system_u:system_r:container_t:s0";
    CHECK(error_of(spec) ==
          "process.selinuxLabel: husk has no SELinux support (got \"system_u:system_r:container_t:s0\")");
    spec = valid_spec();
    spec.linux->mount_label = "l";
    CHECK(error_of(spec) == "linux.mountLabel: husk has no SELinux support (got \"l\")");
}

TEST_CASE("validate requires a root path and a process with args and an absolute cwd", "[spec]") {
    Spec spec = valid_spec();
    spec.root.path.clear();
    CHECK(error_of(spec) == "root.path: must not be empty");
    spec = valid_spec();
    spec.process.reset();
    CHECK(error_of(spec) == "process: required property is missing");
    spec = valid_spec();
    spec.process->args.clear();
    CHECK(error_of(spec) == "process.args: must not be empty");
    spec = valid_spec();
    spec.process->cwd = "work";
    CHECK(error_of(spec) == "process.cwd: must be an absolute path, got \"work\"");
    spec.process->cwd = "";
    CHECK(error_of(spec) == "process.cwd: must be an absolute path, got \"\"");
}

TEST_CASE("validate checks capability names by form only", "[spec]") {
    Spec spec = valid_spec();
    spec.process->capabilities.effective->push_back("CAP_SYS_ADMIN");
    CHECK(husk::spec::validate(spec));
    spec.process->capabilities.ambient->push_back("cap_chown");
    CHECK(error_of(spec) == "process.capabilities.ambient[3]: invalid capability name \"cap_chown\" "
                            "(expected CAP_ followed by upper-case letters, digits or _)");
    spec = valid_spec();
    spec.process->capabilities.inheritable = std::vector<std::string>{"CHOWN"};
    CHECK(error_of(spec).starts_with("process.capabilities.inheritable[0]: invalid capability name \"CHOWN\""));
    spec.process->capabilities.inheritable = std::vector<std::string>{"CAP_"};
    CHECK(error_of(spec).starts_with("process.capabilities.inheritable[0]: invalid capability name \"CAP_\""));
}

TEST_CASE("validate checks rlimit names, duplicates and soft <= hard", "[spec]") {
    Spec spec = valid_spec();
    spec.process->rlimits.push_back({"RLIMIT_RTTIME", 10, 10});
    CHECK(husk::spec::validate(spec));
    spec.process->rlimits.push_back({"RLIMIT_FOO", 1, 1});
    CHECK(error_of(spec) == "process.rlimits[2].type: unknown rlimit \"RLIMIT_FOO\"");
    spec.process->rlimits.back() = {"RLIMIT_NOFILE", 1, 1};
    CHECK(error_of(spec) == "process.rlimits[2].type: duplicate rlimit \"RLIMIT_NOFILE\"");
    spec.process->rlimits.back() = {"RLIMIT_CORE", 1024, 2048};
    CHECK(error_of(spec) == "process.rlimits[2]: soft limit 2048 is above hard limit 1024");
}

TEST_CASE("validate checks the oomScoreAdj range", "[spec]") {
    Spec spec = valid_spec();
    spec.process->oom_score_adj = -1000;
    CHECK(husk::spec::validate(spec));
    spec.process->oom_score_adj = 1001;
    CHECK(error_of(spec) == "process.oomScoreAdj: must be between -1000 and 1000, got 1001");
}

TEST_CASE("validate checks namespace types and duplicates", "[spec]") {
    Spec spec = valid_spec();
    spec.linux->namespaces.push_back({"cgroup", ""});
    spec.linux->namespaces.push_back({"time", ""});
    CHECK(husk::spec::validate(spec));
    spec.linux->namespaces[2].type = "foo";
    CHECK(error_of(spec) == "linux.namespaces[2].type: unknown namespace \"foo\"");
    spec.linux->namespaces[2].type = "pid";
    CHECK(error_of(spec) == "linux.namespaces[2].type: duplicate namespace \"pid\"");
    spec.linux->namespaces[2] = {"uts", "/proc/1/ns/uts"};
    CHECK(error_of(spec) == "linux.namespaces[3].type: duplicate namespace \"uts\"");
    spec = valid_spec();
    spec.linux->namespaces[1].path = "run/netns/x";
    CHECK(error_of(spec) == "linux.namespaces[1].path: must be an absolute path, got \"run/netns/x\"");
}

TEST_CASE("validate ties id mappings to a user namespace", "[spec]") {
    Spec spec = valid_spec();
    spec.linux->uid_mappings.push_back({0, 100000, 65536});
    CHECK(error_of(spec) == "linux.uidMappings: requires a user namespace in linux.namespaces");
    spec.linux->namespaces.push_back({"user", ""});
    CHECK(error_of(spec) == "linux.gidMappings: a new user namespace needs at least one mapping");
    spec.linux->gid_mappings.push_back({0, 100000, 65536});
    CHECK(husk::spec::validate(spec));
    spec.linux->uid_mappings.push_back({70000, 1, 0});
    CHECK(error_of(spec) == "linux.uidMappings[1].size: must be greater than 0");
    spec = valid_spec();
    spec.linux->namespaces.push_back({"user", ""});
    CHECK(error_of(spec) == "linux.uidMappings: a new user namespace needs at least one mapping");
    spec.linux->namespaces.back().path = "/proc/1/ns/user";
    CHECK(husk::spec::validate(spec));
    spec = valid_spec();
    spec.linux->gid_mappings.push_back({0, 1, 1});
    CHECK(error_of(spec) == "linux.gidMappings: requires a user namespace in linux.namespaces");
}

TEST_CASE("validate ties time offsets to a new time namespace and known clocks", "[spec]") {
    Spec spec = valid_spec();
    spec.linux->time_offsets["monotonic"] = {-3600, 0};
    CHECK(error_of(spec) == "linux.timeOffsets: requires a time namespace in linux.namespaces");
    spec.linux->namespaces.push_back({"time", "/proc/1/ns/time"});
    CHECK(error_of(spec) == "linux.timeOffsets: cannot be set when joining an existing time namespace");
    spec.linux->namespaces.back().path.clear();
    CHECK(husk::spec::validate(spec));
    spec.linux->time_offsets["boottime"] = {0, 1000000000};
    CHECK(error_of(spec) == "linux.timeOffsets.boottime.nanosecs: must be less than 1000000000, got 1000000000");
    spec.linux->time_offsets.erase("boottime");
    spec.linux->time_offsets["realtime"] = {1, 0};
    CHECK(error_of(spec) == "linux.timeOffsets.realtime: unknown clock \"realtime\" (expected monotonic or boottime)");
}

TEST_CASE("validate requires a uts namespace for hostname and domainname", "[spec]") {
    Spec spec = valid_spec();
    std::erase_if(spec.linux->namespaces, [](const auto& ns) { return ns.type == "uts"; });
    CHECK(error_of(spec) == "hostname: setting the hostname requires a uts namespace in linux.namespaces");
    spec.hostname.clear();
    CHECK(husk::spec::validate(spec));
    spec.domainname = "example.org";
    CHECK(error_of(spec) == "domainname: setting the domainname requires a uts namespace in linux.namespaces");
    spec.linux.reset();
    CHECK(error_of(spec) == "domainname: setting the domainname requires a uts namespace in linux.namespaces");
}

TEST_CASE("validate rejects a relative mount destination", "[spec]") {
    Spec spec = valid_spec();
    spec.mounts[3].destination = "tmp";
    CHECK(error_of(spec) == "mounts[3].destination: must be an absolute path, got \"tmp\"");
    spec = valid_spec();
    spec.mounts[0].uid_mappings.push_back({0, 0, 0});
    CHECK(error_of(spec) == "mounts[0].uidMappings[0].size: must be greater than 0");
}

TEST_CASE("validate checks devices and device cgroup rules", "[spec]") {
    Spec spec = valid_spec();
    spec.linux->devices.push_back({"c", "/dev/fuse", 10, 229, 0666, 0, 0});
    spec.linux->devices.push_back({"p", "/dev/fifo", 0, 0, {}, {}, {}});
    CHECK(husk::spec::validate(spec));
    spec.linux->devices[1].type = "x";
    CHECK(error_of(spec) == "linux.devices[1].type: unknown device type \"x\" (expected c, b, u or p)");
    spec.linux->devices[1] = {"u", "dev/u", 1, 1, {}, {}, {}};
    CHECK(error_of(spec) == "linux.devices[1].path: must be an absolute path, got \"dev/u\"");
    spec = valid_spec();
    auto& rules = spec.linux->resources->devices;
    rules.push_back({true, "a", {}, {}, ""});
    rules.push_back({true, "c", 136, {}, "rw"});
    CHECK(husk::spec::validate(spec));
    rules[2].type = "p";
    CHECK(error_of(spec) == "linux.resources.devices[2].type: unknown device type \"p\" (expected a, c or b)");
    rules[2].type = "b";
    rules[2].access = "rwx";
    CHECK(error_of(spec) == "linux.resources.devices[2].access: invalid access \"rwx\" (only r, w and m)");
}

TEST_CASE("validate checks hooks, rootfsPropagation and masked and read-only paths", "[spec]") {
    Spec spec = valid_spec();
    spec.hooks.create_runtime.push_back({"/usr/bin/hook", {}, {}, 5});
    CHECK(husk::spec::validate(spec));
    spec.hooks.poststop.push_back({"cleanup.sh", {}, {}, {}});
    CHECK(error_of(spec) == "hooks.poststop[0].path: must be an absolute path, got \"cleanup.sh\"");
    spec.hooks.poststop[0] = {"/cleanup.sh", {}, {}, 0};
    CHECK(error_of(spec) == "hooks.poststop[0].timeout: must be greater than 0, got 0");
    spec = valid_spec();
    spec.linux->rootfs_propagation = "rshared";
    CHECK(husk::spec::validate(spec));
    spec.linux->rootfs_propagation = "recursive";
    CHECK(error_of(spec).starts_with("linux.rootfsPropagation: unknown propagation \"recursive\" (expected private,"));
    spec = valid_spec();
    spec.linux->masked_paths[2] = "proc/kcore";
    CHECK(error_of(spec) == "linux.maskedPaths[2]: must be an absolute path, got \"proc/kcore\"");
    spec = valid_spec();
    spec.linux->readonly_paths.push_back("");
    CHECK(error_of(spec) == "linux.readonlyPaths[5]: must be an absolute path, got \"\"");
}

TEST_CASE("validate accepts husk's limit annotations, refuses an output cap it could not enforce (terminal), "
          "and ignores all other annotations", "[spec]") {
    Spec spec = valid_spec();
    spec.annotations = {{"io.container.manager", "libpod"}, {"org.opencontainers.image.stopSignal", "15"}};
    CHECK(husk::spec::validate(spec));
    spec.annotations["run.husk.oom-group"] = "false";
    CHECK(husk::spec::validate(spec));
    spec.annotations["run.husk.oom-group"] = "no";
    CHECK(error_of(spec) == "annotations[\"run.husk.oom-group\"]: want \"true\" or \"false\", not \"no\"");
    spec.annotations.erase("run.husk.oom-group");
    spec.annotations["run.husk.timeout"] = "2s";
    spec.annotations["run.husk.kill-grace"] = "0";
    spec.annotations["run.husk.stop-signal"] = "SIGINT";
    CHECK(husk::spec::validate(spec));
    spec.annotations["run.husk.output-limit"] = "1MiB";
    spec.annotations["run.husk.cpu-limit"] = "1s";
    spec.process->terminal = false;  // runc's default spec has a terminal
    CHECK(husk::spec::validate(spec));
    spec.process->terminal = true;
    CHECK(error_of(spec).starts_with("run.husk.output-limit (--output-limit): cannot be enforced with process.terminal"));
    spec.process->terminal = false;
    spec.annotations.erase("run.husk.output-limit");
    spec.annotations.erase("run.husk.cpu-limit");
    spec.annotations["run.husk.timeout"] = "soon";
    CHECK(error_of(spec).starts_with("annotations[\"run.husk.timeout\"]: invalid duration \"soon\""));
    spec.annotations = {{"run.husk.bogus", "1"}};
    CHECK(error_of(spec).starts_with("annotations[\"run.husk.bogus\"]: unknown husk annotation"));
}

TEST_CASE("validate applies the command line's settings over the annotations and checks them as one", "[spec]") {
    Spec spec = valid_spec();
    spec.process->terminal = false;
    spec.annotations = {{"run.husk.timeout", "2s"}, {"run.husk.kill-grace", "1s"}};
    husk::spec::HuskSettings flags;
    flags.timeout = std::chrono::milliseconds(500);
    flags.net_ops = 3;
    auto settings = husk::spec::validate(spec, flags);
    REQUIRE(settings);
    CHECK(settings->timeout == std::chrono::milliseconds(500));
    CHECK(settings->kill_grace == std::chrono::milliseconds(1000));
    CHECK(settings->net_ops == 3u);
    // A flag is held to what its annotation is held to.
    flags.output_limit = 4096;
    spec.process->terminal = true;
    auto terminal = husk::spec::validate(spec, flags);
    REQUIRE_FALSE(terminal);
    CHECK_THAT(terminal.error().message(), Catch::Contains("cannot be enforced with process.terminal"));
    spec.process->terminal = false;
    husk::spec::HuskSettings kill_only;
    kill_only.net_ops_kill = true;
    auto kill = husk::spec::validate(spec, kill_only);
    REQUIRE_FALSE(kill);
    CHECK_THAT(kill.error().message(), Catch::Contains("needs a budget to stop at"));
    spec.annotations["run.husk.net-ops"] = "2";
    CHECK(husk::spec::validate(spec, kill_only));
}
