#include "hooks/hooks.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <csignal>
#include <filesystem>
#include <string>

#include "base/fs.hpp"
#include "base/run_in_child.hpp"

namespace {

using husk::hooks::OnFailure;
namespace spec = husk::spec;

// A scratch directory removed with everything in it, even when a test fails.
struct TempDir {
    std::string path;
    TempDir() {
        char name[] = "/tmp/husk-hooks-test-XXXXXX";
        REQUIRE(mkdtemp(name) != nullptr);
        path = name;
    }
    ~TempDir() {
        std::error_code ignored;
        std::filesystem::remove_all(path, ignored);
    }
    std::string file(const std::string& name) const { return path + "/" + name; }
};

const std::string state_json = R"({"ociVersion":"1.3.0","id":"c1","status":"creating","pid":42,"bundle":"/b"})";

spec::Hook shell(const std::string& script, std::vector<std::string> extra = {}, std::optional<int> timeout = {}) {
    spec::Hook hook;
    hook.path = "/bin/sh";
    hook.args = {"sh", "-c", script};
    hook.args.insert(hook.args.end(), extra.begin(), extra.end());
    hook.timeout = timeout;
    return hook;
}

std::size_t open_fd_count() {
    std::size_t count = 0;
    for ([[maybe_unused]] const auto& entry : std::filesystem::directory_iterator("/proc/self/fd")) ++count;
    return count;
}

long elapsed_ms(std::chrono::steady_clock::time_point start) {
    return static_cast<long>(
        std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - start).count());
}

struct ChildReport {
    bool ok = false;
    husk::Error error;
    long elapsed_ms = 0;
};

// apply_child_hooks in a forked child, as the container child runs it; the parent asserts.
ChildReport apply_in_child(const husk::hooks::ChildHooksPlan& plan, const std::string& state) {
    return husk::run_in_child<ChildReport>([&] {
        ChildReport report;
        auto start = std::chrono::steady_clock::now();
        auto applied = husk::hooks::apply_child_hooks(plan, state.data(), state.size());
        report.elapsed_ms = elapsed_ms(start);
        report.ok = applied.has_value();
        if (!applied) report.error = applied.error();
        return report;
    });
}

}  // namespace

TEST_CASE("run_hooks runs hooks that succeed and leaves no fd behind", "[hooks]") {
    spec::Hook hook;
    hook.path = "/bin/true";
    const std::size_t fds_before = open_fd_count();
    auto outcome = husk::hooks::run_hooks({hook, hook}, state_json, "prestart", OnFailure::fail);
    INFO((outcome ? "" : outcome.error().message()));
    REQUIRE(outcome);
    CHECK(outcome->warnings.empty());
    CHECK(open_fd_count() == fds_before);
}

TEST_CASE("run_hooks reports a non-zero exit status with the hook's output", "[hooks]") {
    auto outcome = husk::hooks::run_hooks({shell("echo boom >&2; echo more; exit 3")}, state_json, "createRuntime",
                                          OnFailure::fail);
    REQUIRE_FALSE(outcome);
    CHECK(outcome.error().message() ==
          "createRuntime hook 0 (\"/bin/sh\"): exited with status 3; output: \"boom more\"");
}

TEST_CASE("run_hooks reports a hook killed by a signal", "[hooks]") {
    auto outcome = husk::hooks::run_hooks({shell("kill -SEGV $$")}, state_json, "prestart", OnFailure::fail);
    REQUIRE_FALSE(outcome);
    CHECK(outcome.error().message() == "prestart hook 0 (\"/bin/sh\"): killed by signal SIGSEGV");
}

TEST_CASE("run_hooks kills a hook that outlives its timeout", "[hooks]") {
    auto start = std::chrono::steady_clock::now();
    // exec: the sleep is the hook itself, so SIGKILL leaves nothing behind.
    auto outcome =
        husk::hooks::run_hooks({shell("exec sleep 10", {}, 1)}, state_json, "createRuntime", OnFailure::fail);
    long took = elapsed_ms(start);
    REQUIRE_FALSE(outcome);
    CHECK(outcome.error().message() == "createRuntime hook 0 (\"/bin/sh\"): timed out after 1s");
    CHECK(took >= 900);
    CHECK(took < 3000);
}

TEST_CASE("run_hooks passes the state on stdin", "[hooks]") {
    TempDir dir;
    const std::string big(256 * 1024, 'x');  // more than a pipe holds: the writer must keep up with the reader
    for (const std::string& state : {state_json, big}) {
        auto outcome =
            husk::hooks::run_hooks({shell("cat > \"$0\"", {dir.file("stdin")})}, state, "poststart", OnFailure::fail);
        REQUIRE(outcome);
        CHECK(husk::read_file(dir.file("stdin")).value() == state);
    }
}

TEST_CASE("run_hooks survives a hook that does not read its stdin", "[hooks]") {
    spec::Hook hook;
    hook.path = "/bin/true";
    const std::string big(1024 * 1024, '{');
    auto outcome = husk::hooks::run_hooks({hook}, big, "poststart", OnFailure::fail);
    REQUIRE(outcome);
    // SIGPIPE is blocked only while the hook runs.
    sigset_t mask;
    REQUIRE(sigprocmask(SIG_BLOCK, nullptr, &mask) == 0);
    CHECK_FALSE(sigismember(&mask, SIGPIPE));
}

TEST_CASE("run_hooks gives the hook exactly its env", "[hooks]") {
    TempDir dir;
    spec::Hook hook = shell("cat /proc/$$/environ > \"$0\"", {dir.file("environ")});
    hook.env = {"FOO=bar", "HOOK=1"};
    auto outcome = husk::hooks::run_hooks({hook}, state_json, "prestart", OnFailure::fail);
    REQUIRE(outcome);
    CHECK(husk::read_file(dir.file("environ")).value() == std::string("FOO=bar\0HOOK=1\0", 15));
}

TEST_CASE("run_hooks uses args[0] as argv[0], and the path when args is empty", "[hooks]") {
    TempDir dir;
    spec::Hook named = shell("cat /proc/$$/cmdline > \"$0\"", {dir.file("cmdline")});
    named.args[0] = "my-hook-name";
    REQUIRE(husk::hooks::run_hooks({named}, state_json, "prestart", OnFailure::fail));
    CHECK_THAT(husk::read_file(dir.file("cmdline")).value(), Catch::StartsWith(std::string("my-hook-name\0-c\0", 16)));

    // No args: sh runs with argv = {"/bin/sh"} and reads its commands from stdin, here the "state".
    spec::Hook bare;
    bare.path = "/bin/sh";
    const std::string script = "cat /proc/$$/cmdline > " + dir.file("bare") + "\n";
    REQUIRE(husk::hooks::run_hooks({bare}, script, "prestart", OnFailure::fail));
    CHECK(husk::read_file(dir.file("bare")).value() == std::string("/bin/sh\0", 8));
}

TEST_CASE("run_hooks names a hook that cannot be executed", "[hooks]") {
    spec::Hook hook;
    hook.path = "/nonexistent/hook";
    auto outcome = husk::hooks::run_hooks({hook}, state_json, "createRuntime", OnFailure::fail);
    REQUIRE_FALSE(outcome);
    CHECK(outcome.error().err == ENOENT);
    CHECK(outcome.error().message() ==
          "createRuntime hook 0 (\"/nonexistent/hook\"): execve: no such file or directory");
}

TEST_CASE("run_hooks refuses a relative path and a timeout that is not positive", "[hooks]") {
    spec::Hook relative;
    relative.path = "bin/true";
    auto outcome = husk::hooks::run_hooks({relative}, state_json, "prestart", OnFailure::fail);
    REQUIRE_FALSE(outcome);
    CHECK(outcome.error().message() == "hooks.prestart[0].path: \"bin/true\" is not an absolute path");

    spec::Hook zero;
    zero.path = "/bin/true";
    zero.timeout = 0;
    outcome = husk::hooks::run_hooks({zero}, state_json, "prestart", OnFailure::fail);
    REQUIRE_FALSE(outcome);
    CHECK(outcome.error().message() == "hooks.prestart[0].timeout: 0 is not greater than zero");
}

TEST_CASE("poststop failures are warnings and the remaining hooks still run", "[hooks]") {
    TempDir dir;
    spec::Hook failing;
    failing.path = "/bin/false";
    auto outcome = husk::hooks::run_hooks({failing, shell("touch \"$0\"", {dir.file("ran")})}, state_json, "poststop",
                                          OnFailure::warn);
    REQUIRE(outcome);
    REQUIRE(outcome->warnings.size() == 1);
    CHECK(outcome->warnings[0] == "poststop hook 0 (\"/bin/false\"): exited with status 1");
    CHECK(access(dir.file("ran").c_str(), F_OK) == 0);
}

TEST_CASE("apply_child_hooks runs container-side hooks with the state on stdin", "[hooks]") {
    TempDir dir;
    spec::Hook hook = shell("cat > \"$0\"", {dir.file("stdin")});
    hook.env = {"ONLY=this"};
    auto plan = husk::hooks::prepare_child_hooks({hook, hook}, "createContainer");
    REQUIRE(plan);
    ChildReport report = apply_in_child(*plan, state_json);
    INFO(report.error.message());
    CHECK(report.ok);
    CHECK(husk::read_file(dir.file("stdin")).value() == state_json);
}

TEST_CASE("apply_child_hooks stops at the first failing hook and names it", "[hooks]") {
    TempDir dir;
    auto plan = husk::hooks::prepare_child_hooks(
        {shell("true"), shell("echo nope >&2; exit 7"), shell("touch \"$0\"", {dir.file("ran")})}, "startContainer");
    REQUIRE(plan);
    ChildReport report = apply_in_child(*plan, state_json);
    REQUIRE_FALSE(report.ok);
    CHECK(report.error.message() == "startContainer hook 1 (\"/bin/sh\"): exited with status 7; output: \"nope\"");
    CHECK(access(dir.file("ran").c_str(), F_OK) != 0);
}

TEST_CASE("apply_child_hooks kills a hook that outlives its timeout", "[hooks]") {
    auto plan = husk::hooks::prepare_child_hooks({shell("exec sleep 10", {}, 1)}, "createContainer");
    REQUIRE(plan);
    ChildReport report = apply_in_child(*plan, state_json);
    REQUIRE_FALSE(report.ok);
    CHECK(report.error.message() == "createContainer hook 0 (\"/bin/sh\"): timed out after 1s");
    CHECK(report.elapsed_ms >= 900);
    CHECK(report.elapsed_ms < 3000);
}

TEST_CASE("prepare_child_hooks keeps argv valid when the plan moves", "[hooks]") {
    spec::Hook hook;
    hook.path = "/bin/true";  // short: the string lives inside the object (SSO)
    auto plan = husk::hooks::prepare_child_hooks({hook}, "createContainer");
    REQUIRE(plan);
    husk::hooks::ChildHooksPlan moved = std::move(*plan);
    REQUIRE(moved.hooks.size() == 1);
    CHECK(std::string(moved.hooks[0]->argv[0]) == "/bin/true");
    CHECK(moved.hooks[0]->argv[1] == nullptr);
    CHECK(moved.hooks[0]->envp[0] == nullptr);
}
