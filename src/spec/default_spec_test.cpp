#include "spec/default_spec.hpp"

#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <string>

#include "base/fs.hpp"
#include "spec/parse.hpp"
#include "spec/validate.hpp"

namespace {

// Removes a temporary directory tree on scope exit, also when a REQUIRE fails.
struct TempDir {
    std::string path;
    TempDir() {
        char buffer[] = "/tmp/husk-spec-test-XXXXXX";
        REQUIRE(mkdtemp(buffer) != nullptr);
        path = buffer;
    }
    ~TempDir() {
        std::error_code ignored;
        std::filesystem::remove_all(path, ignored);
    }
};

}  // namespace

TEST_CASE("default_spec_json parses and validates", "[spec]") {
    auto spec = husk::spec::parse_config(husk::spec::default_spec_json());
    REQUIRE(spec);
    CHECK(husk::spec::validate(*spec));
    CHECK(spec->oci_version == "1.3.0");
    CHECK(spec->unsupported.empty());
}

TEST_CASE("default_spec_json runs sh on a terminal in a read-only rootfs like runc's", "[spec]") {
    auto spec = husk::spec::parse_config(husk::spec::default_spec_json()).value();
    REQUIRE(spec.process);
    CHECK(spec.process->terminal);
    CHECK(spec.process->args == std::vector<std::string>{"sh"});
    CHECK(spec.process->cwd == "/");
    CHECK(spec.process->no_new_privileges);
    CHECK_FALSE(spec.process->capabilities.inheritable);
    CHECK(spec.process->capabilities.bounding->size() == 3);
    CHECK(spec.root.path == "rootfs");
    CHECK(spec.root.readonly);
    CHECK(spec.hostname == "runc");
    CHECK(spec.mounts.size() == 7);
    REQUIRE(spec.linux);
    CHECK(spec.linux->namespaces.size() == 5);
    REQUIRE(spec.linux->resources);
    REQUIRE(spec.linux->resources->devices.size() == 1);
    CHECK_FALSE(spec.linux->resources->devices[0].allow);
    CHECK(spec.linux->resources->devices[0].access == "rwm");
    CHECK_FALSE(spec.linux->resources->devices[0].major);
    CHECK(spec.linux->masked_paths.size() == 10);
    CHECK(spec.linux->readonly_paths.size() == 5);
}

TEST_CASE("rootless_spec_json maps the caller as root, drops the network namespace and the resources",
          "[spec]") {
    auto spec = husk::spec::parse_config(husk::spec::rootless_spec_json(4242, 4343)).value();
    CHECK(husk::spec::validate(spec));
    REQUIRE(spec.linux);
    std::vector<std::string> types;
    for (const auto& ns : spec.linux->namespaces) types.push_back(ns.type);
    CHECK(types == std::vector<std::string>{"pid", "ipc", "uts", "mount", "user"});
    REQUIRE(spec.linux->uid_mappings.size() == 1);
    CHECK(spec.linux->uid_mappings[0].container_id == 0);
    CHECK(spec.linux->uid_mappings[0].host_id == 4242);
    CHECK(spec.linux->uid_mappings[0].size == 1);
    REQUIRE(spec.linux->gid_mappings.size() == 1);
    CHECK(spec.linux->gid_mappings[0].host_id == 4343);
    CHECK_FALSE(spec.linux->resources);
    for (const auto& mount : spec.mounts) {
        for (const auto& option : mount.options) {
            CHECK(option.rfind("gid=", 0) != 0);
            CHECK(option.rfind("uid=", 0) != 0);
        }
        if (mount.destination == "/sys") {
            CHECK(mount.source == "/sys");
            CHECK(mount.options == std::vector<std::string>{"rbind", "nosuid", "noexec", "nodev", "ro"});
        }
    }
}

TEST_CASE("default_spec_json is pretty-printed with tabs", "[spec]") {
    std::string json = husk::spec::default_spec_json();
    CHECK(json.starts_with("{\n\t\"ociVersion\": \"1.3.0\",\n\t\"process\": {\n\t\t\"terminal\": true,"));
}

// Byte-for-byte comparison with the installed runc (apart from the version), when there is one.
TEST_CASE("default_spec_json matches runc spec apart from ociVersion", "[spec]") {
    const char* runc = "/usr/sbin/runc";
    if (access(runc, X_OK) != 0) {
        WARN("runc not installed; comparison skipped");
        return;
    }
    TempDir dir;
    pid_t pid = fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
        if (chdir(dir.path.c_str()) == 0) execl(runc, runc, "spec", static_cast<char*>(nullptr));
        _exit(127);
    }
    int status = 0;
    REQUIRE(waitpid(pid, &status, 0) == pid);
    REQUIRE(WIFEXITED(status));
    REQUIRE(WEXITSTATUS(status) == 0);
    std::string theirs = husk::read_file(dir.path + "/config.json").value();
    auto version = theirs.find("\"ociVersion\": \"");
    REQUIRE(version != std::string::npos);
    auto start = version + 15;
    theirs.replace(start, theirs.find('"', start) - start, "1.3.0");
    std::string ours = husk::spec::default_spec_json();
    CHECK(ours == theirs);
}
