#include "spec/sandbox_config.hpp"

#include <algorithm>
#include <catch2/catch.hpp>
#include <string>

#include "spec/parse.hpp"
#include "spec/validate.hpp"

namespace {

using husk::spec::SandboxBind;
using husk::spec::SandboxSettings;

SandboxSettings host_view_settings() {
    SandboxSettings settings;
    settings.args = {"sh", "-c", "echo hi"};
    settings.tmpfs_root_at = "/run/husk";
    settings.host_view = {{"/usr", "/usr", false}, {"/usr/bin", "/bin", false}};
    settings.host_etc = {{"/etc/ld.so.cache", "/etc/ld.so.cache", false}};
    settings.env = {"PATH=/usr/bin:/bin"};
    settings.seccomp_json = R"({"defaultAction":"SCMP_ACT_ALLOW","syscalls":[{"names":["bpf"],"action":"SCMP_ACT_ERRNO"}]})";
    return settings;
}

// The text goes through the very parse and validation a bundle's config.json does.
husk::spec::Spec accepted(const SandboxSettings& settings) {
    auto spec = husk::spec::parse_config(husk::spec::sandbox_config_json(settings));
    REQUIRE(spec);
    auto valid = husk::spec::validate(*spec);
    INFO((valid ? std::string() : valid.error().message()));
    REQUIRE(valid);
    return *spec;
}

bool has_namespace(const husk::spec::Spec& spec, const std::string& type) {
    const auto& all = spec.linux->namespaces;
    return std::any_of(all.begin(), all.end(), [&](const auto& ns) { return ns.type == type; });
}

}  // namespace

TEST_CASE("the sandbox config is hardened by default and valid", "[spec][sandbox]") {
    auto spec = accepted(host_view_settings());
    CHECK(spec.process->user.uid == 65534);
    CHECK(spec.process->user.gid == 65534);
    CHECK(spec.process->no_new_privileges);
    CHECK(spec.process->capabilities.effective.value().empty());
    CHECK(spec.process->capabilities.ambient.value().empty());
    for (const char* type : {"pid", "ipc", "uts", "mount", "cgroup", "network", "user"})
        CHECK(has_namespace(spec, type));
    REQUIRE(spec.linux->uid_mappings.size() == 1);
    CHECK(spec.linux->uid_mappings[0].host_id == 1u << 30);
    CHECK(spec.linux->uid_mappings[0].size == 65536);
    CHECK(spec.linux->seccomp.has_value());
    CHECK(spec.root.readonly);
    CHECK(spec.root.path == "/run/husk");
    CHECK(spec.annotations.at("run.husk.init") == "true");
    CHECK(spec.annotations.at("run.husk.root") == "tmpfs");
    CHECK(spec.hostname == "sandbox");
}

TEST_CASE("the sandbox's host view is read-only binds before /proc, /dev and /tmp", "[spec][sandbox]") {
    auto spec = accepted(host_view_settings());
    REQUIRE(spec.mounts.size() >= 4);
    CHECK(spec.mounts[0].destination == "/usr");
    CHECK(spec.mounts[1].destination == "/bin");
    CHECK(spec.mounts[1].source == "/usr/bin");
    CHECK(spec.mounts[2].destination == "/etc/ld.so.cache");
    for (int i = 0; i < 3; ++i) CHECK(std::count(spec.mounts[i].options.begin(), spec.mounts[i].options.end(), "rro") == 1);
    auto tmp = std::find_if(spec.mounts.begin(), spec.mounts.end(), [](const auto& m) { return m.destination == "/tmp"; });
    REQUIRE(tmp != spec.mounts.end());
    CHECK(tmp->type == "tmpfs");
    // Capped whatever the host: bytes (--tmp-size) and inodes.
    CHECK(std::count(tmp->options.begin(), tmp->options.end(), "size=262144k") == 1);
    CHECK(std::count(tmp->options.begin(), tmp->options.end(), "nr_inodes=65536") == 1);
}

TEST_CASE("sandbox relaxations are explicit: --net host, --no-userns, --seccomp unconfined, --cap", "[spec][sandbox]") {
    SandboxSettings settings = host_view_settings();
    settings.net = husk::spec::SandboxNet::host;
    settings.userns = false;
    settings.seccomp = husk::spec::SandboxSeccomp::unconfined;
    settings.caps = {"CAP_NET_RAW"};
    auto spec = accepted(settings);
    CHECK_FALSE(has_namespace(spec, "network"));
    CHECK_FALSE(has_namespace(spec, "user"));
    CHECK(spec.linux->uid_mappings.empty());
    CHECK_FALSE(spec.linux->seccomp.has_value());
    CHECK(spec.process->user.uid == 65534);
    for (const auto* set : {&spec.process->capabilities.bounding, &spec.process->capabilities.effective,
                            &spec.process->capabilities.inheritable, &spec.process->capabilities.permitted,
                            &spec.process->capabilities.ambient})
        CHECK(set->value() == std::vector<std::string>{"CAP_NET_RAW"});
}

TEST_CASE("a sandbox with --rootfs binds no host view and keeps no tmpfs root", "[spec][sandbox]") {
    SandboxSettings settings = host_view_settings();
    settings.rootfs = "/srv/rootfs";
    settings.host_view.clear();
    settings.host_etc.clear();
    auto spec = accepted(settings);
    CHECK(spec.root.path == "/srv/rootfs");
    CHECK(spec.annotations.count("run.husk.root") == 0);
    CHECK(spec.mounts[0].destination == "/proc");
}

TEST_CASE("sandbox limits land in resources, rlimits and husk's annotations", "[spec][sandbox]") {
    SandboxSettings settings = host_view_settings();
    settings.memory = 64 << 20;
    settings.pids = 32;
    settings.cpus = 0.5;
    settings.nofile = 64;
    settings.fsize = 1 << 20;
    settings.husk.timeout = std::chrono::seconds(2);
    auto spec = accepted(settings);
    const auto& resources = spec.linux->resources.value();
    CHECK(resources.memory->limit == 64 << 20);
    CHECK(resources.pids_limit == 32);
    CHECK(resources.cpu->quota == 50000);
    CHECK(resources.cpu->period == 100000u);
    REQUIRE(spec.process->rlimits.size() == 4);
    CHECK(spec.process->rlimits[0].type == "RLIMIT_NPROC");
    CHECK(spec.process->rlimits[0].hard == husk::spec::default_nproc);
    CHECK(spec.process->rlimits[1].type == "RLIMIT_CORE");
    CHECK(spec.process->rlimits[1].hard == 0);
    CHECK(spec.process->rlimits[2].type == "RLIMIT_NOFILE");
    CHECK(spec.process->rlimits[2].hard == 64);
    CHECK(spec.process->rlimits[3].soft == 1 << 20);
    CHECK(spec.annotations.at("run.husk.timeout") == "2s");
}

TEST_CASE("a later --env of the same name replaces the earlier one in place", "[spec][sandbox]") {
    SandboxSettings settings = host_view_settings();
    settings.env = {"A=1", "PATH=/bin", "A=2", "B"};
    auto spec = accepted(settings);
    CHECK(spec.process->env == std::vector<std::string>{"A=2", "PATH=/bin", "B"});
}

TEST_CASE("sandbox landlock flags restrict to the named paths plus the system view", "[spec][sandbox]") {
    SandboxSettings settings = host_view_settings();
    settings.landlock_read = {"/data"};
    settings.landlock_write = {"/tmp"};
    settings.landlock_connect = {443};
    auto spec = accepted(settings);
    const auto& landlock = spec.process->landlock.value();
    REQUIRE(landlock.path_beneath.size() == 5);
    CHECK(landlock.path_beneath[0].paths == std::vector<std::string>{"/usr", "/bin", "/etc"});
    CHECK(landlock.path_beneath[3].paths == std::vector<std::string>{"/data"});
    CHECK(landlock.path_beneath[4].paths == std::vector<std::string>{"/tmp"});
    REQUIRE(landlock.net_port.size() == 1);
    CHECK(landlock.net_port[0].ports == std::vector<std::uint16_t>{443});
}

TEST_CASE("sandbox binds go in parent-first order, else in the order given", "[spec][sandbox]") {
    SandboxSettings settings = host_view_settings();
    settings.binds = {{"/srv/b", "/x/y", false}, {"/srv/a", "/x", true}, {"/srv/c", "/z", false}};
    auto spec = accepted(settings);
    std::vector<std::string> destinations;
    for (const auto& mount : spec.mounts) destinations.push_back(mount.destination);
    REQUIRE(destinations.size() >= 3);
    CHECK(std::vector<std::string>(destinations.end() - 3, destinations.end()) ==
          std::vector<std::string>{"/x", "/z", "/x/y"});
}

TEST_CASE("a sandbox bind is SRC[:DST] with DST absolute and without \"..\"", "[spec][sandbox]") {
    auto same = husk::spec::parse_sandbox_bind("bind", "/data", false);
    REQUIRE(same);
    CHECK(same->source == "/data");
    CHECK(same->destination == "/data");
    CHECK_FALSE(same->writable);
    auto moved = husk::spec::parse_sandbox_bind("bind-rw", "out:/work/out", true);
    REQUIRE(moved);
    CHECK(moved->source == "out");  // made absolute by the container layer, against the caller's cwd
    CHECK(moved->destination == "/work/out");
    CHECK(moved->writable);
    auto error = [](const std::string& text) {
        auto bind = husk::spec::parse_sandbox_bind("bind", text, false);
        REQUIRE_FALSE(bind);
        return bind.error().message();
    };
    CHECK(error(":/x") == "--bind: want SRC[:DST], not \":/x\"");
    CHECK(error("/x:") == "--bind: want SRC[:DST], not \"/x:\"");
    CHECK(error("rel") == "--bind: DST must be an absolute path, not \"rel\"");
    CHECK(error("/x:/a/../b") == "--bind: DST must not contain \"..\", not \"/a/../b\"");
    CHECK(error("/x:/..") == "--bind: DST must not contain \"..\", not \"/..\"");
    CHECK(husk::spec::parse_sandbox_bind("bind", "/x:/a..b", false));  // a name with dots is no ".."
}
