// The seccomp profile husk ships (`husk seccomp-profile`, docs/security.md) in a real container: ordinary
// programs (busybox's shell and tools, the host's python3) work under it, and what it lists fails with the
// errno it documents.
#include <catch2/catch.hpp>

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <string>
#include <vector>

#include "harness.hpp"
#include "monitor_support.hpp"

using namespace husk::test;

namespace {

Json shipped_profile(Sandbox& sb) {
    Output printed = sb.husk({"seccomp-profile"});
    INFO(printed.describe());
    REQUIRE(printed.exit_code == 0);
    return Json::parse(printed.out);
}

// Runs the bundle under the shipped profile in the foreground and returns what it printed.
Output run_under_profile(Sandbox& sb, Bundle& b, const std::string& name) {
    b.config["linux"]["seccomp"] = shipped_profile(sb);
    Output run = sb.run(b, sb.id(name));
    INFO(run.describe());
    REQUIRE(run.exit_code == 0);
    return run;
}

}  // namespace

TEST_CASE("husk seccomp-profile prints a linux.seccomp object that allows by default", "[integration][seccomp]") {
    Sandbox sb;
    Json profile = shipped_profile(sb);
    CHECK(profile["defaultAction"].str() == "SCMP_ACT_ALLOW");
    std::vector<std::string> names;
    for (const Json& rule : profile["syscalls"].items())
        for (const std::string& name : rule["names"].strs()) names.push_back(name);
    for (const char* listed : {"keyctl", "bpf", "ptrace", "mount", "unshare", "clone", "clone3", "perf_event_open"})
        CHECK(std::find(names.begin(), names.end(), listed) != names.end());
}

TEST_CASE("busybox's shell, ls and cat run under the shipped seccomp profile", "[integration][seccomp]") {
    Sandbox sb;
    Bundle b = with_args(sb, {"/bin/sh", "-c", "ls / >/dev/null && cat /proc/self/status | grep '^Seccomp:'"});
    Output run = run_under_profile(sb, b, "busybox");
    CHECK(lines(run.out) == std::vector<std::string>{"Seccomp:\t2"});
}

TEST_CASE("the shipped seccomp profile denies what it lists inside a container", "[integration][seccomp]") {
    Sandbox sb;
    const std::vector<std::pair<std::string, int>> expected = {
        {"keyctl", EPERM}, {"bpf", EPERM}, {"ptrace", EPERM}, {"mount", EPERM}, {"unshare-user", EPERM},
        {"clone-user", EPERM}, {"perf_event_open", EPERM}, {"io_uring_setup", EPERM}, {"clone3", ENOSYS},
        {"getpid", 0}};
    std::string script;
    for (const auto& [name, err] : expected) script += "/probe syscall " + name + "; ";
    Bundle b = with_args(sb, {"/bin/sh", "-c", script});
    Output run = run_under_profile(sb, b, "denials");
    std::vector<std::string> printed = lines(run.out);
    REQUIRE(printed.size() == expected.size());
    for (std::size_t i = 0; i < expected.size(); ++i) {
        INFO(expected[i].first << ": " << printed[i]);
        CHECK(Json::parse(printed[i])["errno"].num() == expected[i].second);
    }
}

TEST_CASE("the host's python3 runs under the shipped seccomp profile", "[integration][seccomp]") {
    struct stat st{};
    if (::stat("/usr/bin/python3", &st) != 0) {
        WARN("skipped: the host has no /usr/bin/python3 to bind into the container");
        return;
    }
    Sandbox sb;
    Bundle b = with_args(sb, {"/usr/bin/python3", "-S", "-c",
                              "import os, threading; t = threading.Thread(target=print, args=('thread',)); "
                              "t.start(); t.join(); print(os.getpid() > 0)"});
    // The host's /usr read-only over the rootfs's, with Debian's merged-/usr links beside it.
    REQUIRE(::symlink("usr/lib", (b.rootfs() + "/lib").c_str()) == 0);
    REQUIRE(::symlink("usr/lib64", (b.rootfs() + "/lib64").c_str()) == 0);
    b.config["mounts"].push_back(Json::object({{"destination", "/usr"}, {"type", "bind"}, {"source", "/usr"},
                                               {"options", Json::strings({"rbind", "ro"})}}));
    Output run = run_under_profile(sb, b, "python");
    CHECK(lines(run.out) == std::vector<std::string>{"thread", "True"});
}
