// Landlock's filesystem rights and apply_landlock's errors, against the real kernel.
#include <fcntl.h>
#include <linux/capability.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "landlock/test_support.hpp"

using namespace husk::landlock::test;

namespace {

namespace fs = std::filesystem;
using husk::UniqueFd;
using husk::landlock::LandlockPlan;

// A scratch tree under /tmp, removed whatever the test's outcome.
struct ScratchDir {
    fs::path path;
    ScratchDir() {
        char name[] = "/tmp/husk-landlock-XXXXXX";
        REQUIRE(mkdtemp(name) != nullptr);
        path = name;
    }
    ~ScratchDir() {
        std::error_code ignored;
        fs::remove_all(path, ignored);
    }
};

void write_text(const fs::path& path, const char* text) { std::ofstream(path) << text; }

}  // namespace

TEST_CASE("landlock denies writing outside an allowed tree and allows reading inside it", "[landlock]") {
    ScratchDir scratch;
    fs::create_directories(scratch.path / "allowed");
    fs::create_directories(scratch.path / "outside");
    write_text(scratch.path / "allowed" / "file", "in");
    write_text(scratch.path / "outside" / "file", "out");
    Landlock config;
    config.handled_access_fs = {named("read_file"), named("write_file"), named("make_reg"), named("truncate")};
    config.path_beneath = {{{named("read_file"), named("write_file"), named("make_reg")},
                            {(scratch.path / "allowed").string()}}};
    const std::string inside = scratch.path / "allowed" / "file", outside = scratch.path / "outside" / "file",
                      created = scratch.path / "outside" / "new";
    Outcome out = enforce_then(prepare(config), [&](int* err) {
        UniqueFd read_inside(open(inside.c_str(), O_RDONLY | O_CLOEXEC));
        err[0] = read_inside ? 0 : errno;
        UniqueFd write_outside(open(outside.c_str(), O_WRONLY | O_CLOEXEC));
        err[1] = write_outside ? 0 : errno;
        UniqueFd create_outside(open(created.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0600));
        err[2] = create_outside ? 0 : errno;
        UniqueFd read_outside(open(outside.c_str(), O_RDONLY | O_CLOEXEC));
        err[3] = read_outside ? 0 : errno;
    });
    REQUIRE(out.applied);
    CHECK(out.abi > 0);
    CHECK(out.err[0] == 0);
    CHECK(out.err[1] == EACCES);
    CHECK(out.err[2] == EACCES);
    CHECK(out.err[3] == EACCES);
    CHECK_FALSE(fs::exists(scratch.path / "outside" / "new"));
}

TEST_CASE("landlock denies execve where execute is not granted", "[landlock]") {
    // Numeric masks, as the kernel spells them: 1 = execute.
    Landlock denied;
    denied.handled_access_fs = {number(1)};
    Outcome out = enforce_then(prepare(denied), [](int* err) {
        char* const argv[] = {const_cast<char*>("true"), nullptr};
        err[0] = attempt(execve("/bin/true", argv, environ));  // returns only on failure
    });
    REQUIRE(out.applied);
    CHECK(out.err[0] == EACCES);

    // Granted beneath /usr (Debian's /bin and the dynamic loader live there), the same execve runs.
    Landlock granted = denied;
    granted.path_beneath = {{{number(1)}, {"/usr"}}};
    LandlockPlan plan = prepare(granted);
    pid_t pid = fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
        char* const argv[] = {const_cast<char*>("true"), nullptr};
        if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 || !husk::landlock::apply_landlock(plan)) _exit(100);
        execve("/bin/true", argv, environ);
        _exit(errno == EACCES ? 101 : 102);
    }
    int status = 0;
    REQUIRE(waitpid(pid, &status, 0) == pid);
    CHECK(WIFEXITED(status));
    CHECK(WEXITSTATUS(status) == 0);
}

TEST_CASE("apply_landlock names a missing rule path and its field", "[landlock]") {
    Landlock config;
    config.handled_access_fs = {named("read_file")};
    config.path_beneath = {{{named("read_file")}, {"/usr", "/nonexistent/husk-landlock"}}};
    Outcome out = enforce_then(prepare(config), [](int*) {});
    REQUIRE_FALSE(out.applied);
    CHECK(out.error.message() == "process.landlock.rules.pathBeneath[0].paths[1]: open \"/nonexistent/husk-landlock\": "
                                 "no such file or directory");
}

TEST_CASE("apply_landlock explains directory rights granted on a file", "[landlock]") {
    Landlock config;
    config.handled_access_fs = {named("read_file"), named("read_dir")};
    config.path_beneath = {{{named("read_file"), named("read_dir")}, {"/etc/hostname"}}};
    Outcome out = enforce_then(prepare(config), [](int*) {});
    REQUIRE_FALSE(out.applied);
    CHECK(out.error.message() == "process.landlock.rules.pathBeneath[0].paths[0]: \"/etc/hostname\" is not a "
                                 "directory, so a rule on it can only allow execute, write_file, read_file, "
                                 "truncate and ioctl_dev");
}

TEST_CASE("apply_landlock fails clearly without no_new_privs or CAP_SYS_ADMIN", "[landlock]") {
    Landlock config;
    config.handled_access_fs = {named("write_file")};
    LandlockPlan plan = prepare(config);
    Outcome out = husk::run_in_child<Outcome>([&] {
        Outcome result;
        // Empty the effective set (permitted stays), and leave no_new_privs unset.
        __user_cap_header_struct header = {_LINUX_CAPABILITY_VERSION_3, 0};
        __user_cap_data_struct data[2] = {};
        syscall(SYS_capget, &header, data);
        data[0].effective = data[1].effective = 0;
        if (syscall(SYS_capset, &header, data) != 0) return result;
        auto applied = husk::landlock::apply_landlock(plan);
        result.applied = applied.has_value();
        if (!applied) result.error = applied.error();
        return result;
    });
    REQUIRE_FALSE(out.applied);
    CHECK(out.error.err == EPERM);
    CHECK(out.error.message() == "process.landlock: landlock_restrict_self needs no_new_privs or CAP_SYS_ADMIN, and "
                                 "the container process has neither: operation not permitted");
}

TEST_CASE("the running kernel refuses a right beyond its ABI unless best effort is asked", "[landlock]") {
    auto abi = husk::landlock::probe_abi();
    REQUIRE(abi);
    Landlock config;
    config.handled_access_fs = {named("read_file"), number(1ull << 20)};
    auto strict = husk::landlock::prepare_landlock(config, *abi);
    REQUIRE_FALSE(strict);
    CHECK(strict.error().message().find("cannot enforce: handledAccessFS bit 20") != std::string::npos);

    config.disable_best_effort = false;
    auto best_effort = husk::landlock::prepare_landlock(config, *abi);
    REQUIRE(best_effort);
    CHECK(best_effort->dropped == std::vector<std::string>{"handledAccessFS bit 20"});
    Outcome out = enforce_then(*best_effort, [](int* err) {
        UniqueFd fd(open("/etc/hostname", O_RDONLY | O_CLOEXEC));
        err[0] = fd ? 0 : errno;
    });
    REQUIRE(out.applied);
    CHECK(out.err[0] == EACCES);
}
