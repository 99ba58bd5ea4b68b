#include "spec/parse.hpp"

#include <catch2/catch.hpp>
#include <string>

#include "spec/test_configs.hpp"
#include "spec/validate.hpp"

namespace {

using husk::spec::parse_config;

std::string parse_error(const std::string& json) {
    auto spec = parse_config(json);
    REQUIRE_FALSE(spec);
    return spec.error().message();
}

// A minimal valid document with `extra` spliced in at the top level.
std::string with(const std::string& extra) {
    return R"({"ociVersion": "1.3.0", "root": {"path": "rootfs"},
               "process": {"args": ["sh"], "cwd": "/"})" + (extra.empty() ? "" : ", " + extra) + "}";
}

}  // namespace

TEST_CASE("parse_config fills process, root, hostname, mounts, hooks and annotations", "[spec]") {
    auto spec = parse_config(R"({
      "ociVersion": "1.3.0",
      "process": {"terminal": true, "consoleSize": {"height": 25, "width": 80},
                  "user": {"uid": 1000, "gid": 100, "umask": 18, "additionalGids": [5, 6]},
                  "args": ["sh", "-c", "true"], "env": ["A=1"], "cwd": "/work",
                  "capabilities": {"bounding": ["CAP_KILL"], "inheritable": []},
                  "rlimits": [{"type": "RLIMIT_NOFILE", "hard": 18446744073709551615, "soft": 1024}],
                  "noNewPrivileges": true, "oomScoreAdj": -500,
                  "apparmorProfile": "profile", "selinuxLabel": "label"},
      "root": {"path": "/bundle/rootfs", "readonly": true},
      "hostname": "box", "domainname": "example.org",
      "mounts": [{"destination": "/data", "type": "none", "source": "/srv", "options": ["rbind", "ro"],
                  "uidMappings": [{"containerID": 0, "hostID": 1000, "size": 1}]}],
      "hooks": {"prestart": [{"path": "/bin/a"}], "createRuntime": [{"path": "/bin/b", "args": ["b", "1"]}],
                "createContainer": [{"path": "/bin/c", "env": ["X=1"]}], "startContainer": [{"path": "/bin/d"}],
                "poststart": [{"path": "/bin/e", "timeout": 5}], "poststop": [{"path": "/bin/f"}]},
      "annotations": {"com.example.key": "value", "run.husk.timeout": "30s"}
    })");
    REQUIRE(spec);
    const auto& process = spec->process.value();
    CHECK(process.terminal);
    CHECK(process.console_size->height == 25);
    CHECK(process.console_size->width == 80);
    CHECK(process.user.uid == 1000);
    CHECK(process.user.gid == 100);
    CHECK(process.user.umask == 18u);
    CHECK(process.user.additional_gids == std::vector<std::uint32_t>{5, 6});
    CHECK(process.args == std::vector<std::string>{"sh", "-c", "true"});
    CHECK(process.env == std::vector<std::string>{"A=1"});
    CHECK(process.cwd == "/work");
    CHECK(process.capabilities.bounding == std::vector<std::string>{"CAP_KILL"});
    CHECK(process.capabilities.inheritable == std::vector<std::string>{});
    CHECK_FALSE(process.capabilities.ambient);
    REQUIRE(process.rlimits.size() == 1);
    CHECK(process.rlimits[0].type == "RLIMIT_NOFILE");
    CHECK(process.rlimits[0].hard == UINT64_MAX);
    CHECK(process.rlimits[0].soft == 1024);
    CHECK(process.no_new_privileges);
    CHECK(process.oom_score_adj == -500);
    CHECK(process.apparmor_profile == "profile");
    CHECK(process.selinux_label == "label");
    CHECK(spec->root.path == "/bundle/rootfs");
    CHECK(spec->root.readonly);
    CHECK(spec->hostname == "box");
    CHECK(spec->domainname == "example.org");
    REQUIRE(spec->mounts.size() == 1);
    CHECK(spec->mounts[0].destination == "/data");
    CHECK(spec->mounts[0].type == "none");
    CHECK(spec->mounts[0].source == "/srv");
    CHECK(spec->mounts[0].options == std::vector<std::string>{"rbind", "ro"});
    REQUIRE(spec->mounts[0].uid_mappings.size() == 1);
    CHECK(spec->mounts[0].uid_mappings[0].host_id == 1000);
    CHECK(spec->hooks.prestart[0].path == "/bin/a");
    CHECK(spec->hooks.create_runtime[0].args == std::vector<std::string>{"b", "1"});
    CHECK(spec->hooks.create_container[0].env == std::vector<std::string>{"X=1"});
    CHECK(spec->hooks.start_container[0].path == "/bin/d");
    CHECK(spec->hooks.poststart[0].timeout == 5);
    CHECK_FALSE(spec->hooks.poststop[0].timeout);
    CHECK(spec->annotations.at("run.husk.timeout") == "30s");
    CHECK_FALSE(spec->linux);
    CHECK(spec->unsupported.empty());
}

TEST_CASE("parse_config fills the linux object", "[spec]") {
    auto spec = parse_config(with(R"("linux": {
      "namespaces": [{"type": "pid"}, {"type": "network", "path": "/run/netns/n1"}],
      "uidMappings": [{"containerID": 0, "hostID": 100000, "size": 65536}],
      "gidMappings": [{"containerID": 0, "hostID": 200000, "size": 1}],
      "timeOffsets": {"monotonic": {"secs": -86400, "nanosecs": 5}, "boottime": {}},
      "devices": [{"path": "/dev/fuse", "type": "c", "major": 10, "minor": 229, "fileMode": 438, "uid": 0, "gid": 0},
                  {"path": "/dev/fifo", "type": "p"}],
      "cgroupsPath": "/husk/c1", "rootfsPropagation": "rslave",
      "maskedPaths": ["/proc/kcore"], "readonlyPaths": ["/proc/sys"],
      "sysctl": {"net.ipv4.ip_forward": "1"}, "mountLabel": "system_u:object_r:x:s0"})"));
    REQUIRE(spec);
    const auto& linux = spec->linux.value();
    REQUIRE(linux.namespaces.size() == 2);
    CHECK(linux.namespaces[1].type == "network");
    CHECK(linux.namespaces[1].path == "/run/netns/n1");
    CHECK(linux.uid_mappings[0].host_id == 100000);
    CHECK(linux.uid_mappings[0].size == 65536);
    CHECK(linux.gid_mappings[0].host_id == 200000);
    CHECK(linux.time_offsets.at("monotonic").secs == -86400);
    CHECK(linux.time_offsets.at("monotonic").nanosecs == 5);
    CHECK(linux.time_offsets.at("boottime").secs == 0);
    REQUIRE(linux.devices.size() == 2);
    CHECK(linux.devices[0].major == 10);
    CHECK(linux.devices[0].minor == 229);
    CHECK(linux.devices[0].file_mode == 438u);
    CHECK(linux.devices[0].uid == 0u);
    CHECK_FALSE(linux.devices[1].file_mode);
    CHECK(linux.cgroups_path == "/husk/c1");
    CHECK(linux.rootfs_propagation == "rslave");
    CHECK(linux.masked_paths == std::vector<std::string>{"/proc/kcore"});
    CHECK(linux.readonly_paths == std::vector<std::string>{"/proc/sys"});
    CHECK(linux.sysctl.at("net.ipv4.ip_forward") == "1");
    CHECK(linux.mount_label == "system_u:object_r:x:s0");
    CHECK_FALSE(linux.resources);
}

TEST_CASE("parse_config reports invalid JSON with yajl's message", "[spec]") {
    CHECK(parse_error("{bad") == "invalid JSON: lexical error: invalid char in json text.");
    CHECK(parse_error("") == "invalid JSON: parse error: premature EOF");
    CHECK(parse_error("{} x") == "invalid JSON: parse error: trailing garbage");
    CHECK(parse_error("[1]") == "(top level): expected an object");
}

TEST_CASE("parse_config names the JSON path of a value of the wrong type", "[spec]") {
    CHECK(parse_error(R"({"process": {"args": [1]}})") == "process.args[0]: expected a string");
    CHECK(parse_error(R"({"linux": {"uidMappings": [{"containerID": 0, "hostID": 0, "size": 1},
                                                    {"containerID": 0, "hostID": 0, "size": -1}]}})") ==
          "linux.uidMappings[1].size: expected an unsigned integer");
    CHECK(parse_error(R"({"linux": {"uidMappings": [{"containerID": 0, "hostID": 0, "size": 1.5}]}})") ==
          "linux.uidMappings[0].size: expected an unsigned integer");
    CHECK(parse_error(R"({"linux": {"uidMappings": [{"containerID": 0, "hostID": 0, "size": 4294967296}]}})") ==
          "linux.uidMappings[0].size: 4294967296 is out of range for a 32-bit unsigned integer");
    CHECK(parse_error(R"({"process": {"rlimits": [{"type": "RLIMIT_CORE", "soft": 1, "hard": 18446744073709551616}]}})") ==
          "process.rlimits[0].hard: 18446744073709551616 is out of range for a 64-bit unsigned integer");
    CHECK(parse_error(R"({"process": {"oomScoreAdj": "5"}})") == "process.oomScoreAdj: expected an integer");
    CHECK(parse_error(R"({"process": {"oomScoreAdj": 3000000000}})") ==
          "process.oomScoreAdj: 3000000000 is out of range for a 32-bit integer");
    CHECK(parse_error(R"({"root": {"path": "r", "readonly": "yes"}})") == "root.readonly: expected a boolean");
    CHECK(parse_error(R"({"mounts": {}})") == "mounts: expected an array");
    CHECK(parse_error(R"({"linux": []})") == "linux: expected an object");
    CHECK(parse_error(R"({"annotations": {"a": 1}})") == "annotations.a: expected a string");
    CHECK(parse_error(R"({"ociVersion": 1})") == "ociVersion: expected a string");
    CHECK(parse_error(R"({"hooks": {"poststop": [{"path": "/x", "timeout": "1"}]}})") ==
          "hooks.poststop[0].timeout: expected an integer");
    CHECK(parse_error(R"({"linux": {"timeOffsets": {"boottime": {"secs": 1, "nanosecs": -1}}}})") ==
          "linux.timeOffsets.boottime.nanosecs: expected an unsigned integer");
}

TEST_CASE("parse_config reports missing required properties by path", "[spec]") {
    CHECK(parse_error(R"({"root": {}})") == "root.path: required property is missing");
    CHECK(parse_error(R"({"mounts": [{"type": "tmpfs"}]})") == "mounts[0].destination: required property is missing");
    CHECK(parse_error(R"({"linux": {"namespaces": [{"path": "/x"}]}})") ==
          "linux.namespaces[0].type: required property is missing");
    CHECK(parse_error(R"({"linux": {"gidMappings": [{"containerID": 0, "hostID": 0}]}})") ==
          "linux.gidMappings[0].size: required property is missing");
    CHECK(parse_error(R"({"process": {"rlimits": [{"type": "RLIMIT_CORE", "hard": 1}]}})") ==
          "process.rlimits[0].soft: required property is missing");
    CHECK(parse_error(R"({"hooks": {"prestart": [{"args": []}]}})") == "hooks.prestart[0].path: required property is missing");
}

TEST_CASE("parse_config treats JSON null as an absent property", "[spec]") {
    auto spec = parse_config(with(R"("mounts": null, "annotations": null, "hostname": null,
                                      "linux": {"namespaces": null, "resources": null, "seccomp": null})"));
    REQUIRE(spec);
    CHECK(spec->mounts.empty());
    CHECK(spec->linux->namespaces.empty());
    CHECK_FALSE(spec->linux->resources);
    CHECK(spec->unsupported.empty());
}

TEST_CASE("parse_config ignores unknown properties", "[spec]") {
    auto spec = parse_config(with(R"("com.example.future": {"x": [1, 2]}, "linux": {"newThing": true,
                                      "resources": {"futureController": {"a": 1}}})"));
    REQUIRE(spec);
    CHECK(spec->unsupported.empty());
    CHECK(husk::spec::validate(*spec));
}

TEST_CASE("parse_config lists requested features husk does not implement", "[spec]") {
    auto spec = parse_config(with(R"("linux": {"seccomp": {"defaultAction": "SCMP_ACT_ALLOW"},
        "intelRdt": {"closID": "x"}, "personality": {"domain": "LINUX32"},
        "memoryPolicy": {"mode": "MPOL_BIND", "nodes": "0"}, "netDevices": {"eth1": {"name": "e"}}},
        "solaris": {"milestone": "m"}, "windows": {"layerFolders": ["c"]}, "vm": {"hypervisor": {}},
        "zos": {"namespaces": []}, "freebsd": {"jail": {}})"));
    REQUIRE(spec);
    CHECK(spec->unsupported == std::vector<std::string>{"linux.intelRdt", "linux.personality",
                                                        "linux.memoryPolicy", "linux.netDevices", "solaris",
                                                        "windows", "vm", "zos", "freebsd"});
    auto process = parse_config(R"({"process": {"scheduler": {"policy": "SCHED_FIFO"},
        "ioPriority": {"class": "IOPRIO_CLASS_RT", "priority": 1}, "execCPUAffinity": {"initial": "0"}}})");
    REQUIRE(process);
    CHECK(process->unsupported == std::vector<std::string>{"process.scheduler", "process.ioPriority",
                                                           "process.execCPUAffinity"});
}

TEST_CASE("parse_config does not list empty unsupported sections", "[spec]") {
    auto spec = parse_config(with(R"("linux": {"seccomp": {}, "netDevices": {}}, "windows": null)"));
    REQUIRE(spec);
    CHECK(spec->unsupported.empty());
}

TEST_CASE("containerd and podman style configs parse and validate", "[spec]") {
    auto containerd = parse_config(husk::spec::test::containerd_config);
    REQUIRE(containerd);
    CHECK(husk::spec::validate(*containerd));
    CHECK(containerd->process->user.additional_gids == std::vector<std::uint32_t>{0});
    CHECK(containerd->process->capabilities.bounding->size() == 14);
    const auto& rules = containerd->linux->resources->devices;
    REQUIRE(rules.size() == 10);
    CHECK(rules[8].major == 136);
    CHECK_FALSE(rules[8].minor);
    CHECK(containerd->linux->cgroups_path == "/default/t1");

    auto podman = parse_config(husk::spec::test::podman_config);
    REQUIRE(podman);
    CHECK(husk::spec::validate(*podman));
    CHECK(podman->process->user.umask == 18u);
    CHECK(podman->hostname == "2b8a1f2c3d4e");
    CHECK(podman->annotations.size() == 8);
    CHECK(podman->linux->resources->pids_limit == 2048);
    CHECK(podman->linux->resources->memory->swap == 134217728);
    CHECK(podman->linux->namespaces[1].path == "/proc/4242/ns/net");
}

TEST_CASE("parse_config ignores an unknown hook kind but records it for a warning", "[spec]") {
    auto spec = parse_config(with(R"("hooks": {"prestrat": [{"path": "/bin/a"}], "poststop": [{"path": "/bin/b"}]})"));
    REQUIRE(spec);
    CHECK(spec->hooks.prestart.empty());
    CHECK(spec->hooks.poststop.size() == 1);
    REQUIRE(spec->ignored.size() == 1);
    CHECK(spec->ignored[0] == "hooks.prestrat: unknown hook kind, ignored (known: prestart, createRuntime, "
                              "createContainer, startContainer, poststart, poststop)");
    auto clean = parse_config(with(R"("hooks": {"prestart": []})"));
    REQUIRE(clean);
    CHECK(clean->ignored.empty());
}

TEST_CASE("parse_config refuses an escaped NUL that would cut process.args[0] short", "[spec]") {
    CHECK(parse_error(R"({"process": {"args": ["echo\u0000-not-echo"], "cwd": "/"}})") ==
          "process.args[0]: the string contains a NUL character (\\u0000)");
}
