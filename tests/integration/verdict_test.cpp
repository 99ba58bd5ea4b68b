// `husk run --verdict FILE` / `--verdict-fd N` (husk(8), VERDICT): exactly one whole JSON object per run, for
// every reason husk run reaches on this host, also when husk refuses the config or fails before the program
// runs; and the cancel: SIGTERM to husk run is forwarded, then enforced with the kill grace.
#include <catch2/catch.hpp>

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <optional>
#include <thread>

#include "harness.hpp"
#include "monitor_support.hpp"

using namespace husk::test;
using Catch::Matchers::Contains;

namespace {

// The names in `dir`: the verdict file and nothing else (no temporary left by the atomic write).
std::vector<std::string> entries(const std::string& dir) {
    std::vector<std::string> names;
    if (DIR* d = ::opendir(dir.c_str())) {
        while (dirent* e = ::readdir(d))
            if (std::string(e->d_name) != "." && std::string(e->d_name) != "..") names.push_back(e->d_name);
        ::closedir(d);
    }
    return names;
}

// Runs `b` with --verdict into a directory of its own; returns the verdict, REQUIREd whole and alone.
Json run_with_verdict(Sandbox& sb, const Bundle& b, const std::string& id, std::vector<std::string> flags,
                      Output* out = nullptr) {
    std::string dir = sb.dir() + "/verdict-" + id;
    REQUIRE(::mkdir(dir.c_str(), 0700) == 0);
    flags.insert(flags.end(), {"--verdict", dir + "/verdict.json"});
    Output run = sb.run(b, id, flags);
    INFO(run.describe());
    CHECK(entries(dir) == std::vector<std::string>{"verdict.json"});
    std::string text = read_file(dir + "/verdict.json");
    INFO("verdict: " << text);
    REQUIRE(lines(text).size() == 1);
    Json verdict = Json::parse(text);
    CHECK(verdict["id"].str() == id);
    CHECK(verdict["status"].num() == run.exit_code);
    CHECK_FALSE(verdict["finished"].str().empty());
    if (out) *out = run;
    return verdict;
}

// A bundle of `sleep 100` with its config.json written, for husk started by a shell.
Bundle written_sleeper(Sandbox& sb) {
    Bundle b = with_args(sb, {"/bin/sleep", "100"});
    b.write();
    return b;
}

pid_t wait_for_pid_file(const std::string& path) {
    for (auto deadline = std::chrono::steady_clock::now() + Ms(20000); std::chrono::steady_clock::now() < deadline;
         std::this_thread::sleep_for(Ms(10))) {
        std::string text = read_file(path);
        if (!text.empty()) return static_cast<pid_t>(std::stol(text));
    }
    FAIL("no pid file " << path);
    return 0;
}

// `husk run --verdict` in the background, with a pid file: init's pid once it is written.
struct BackgroundRun {
    std::string id, pid_file, verdict;
    Process process;
    pid_t init = 0;

    BackgroundRun(Sandbox& sb, Bundle& b, std::string name, std::vector<std::string> flags)
        : id(sb.id(name)), pid_file(sb.dir() + "/init.pid"), verdict(sb.dir() + "/verdict.json"),
          process(start(sb, b, flags)) {
        init = wait_for_pid_file(pid_file);
    }
    // The verdict, once husk has ended with `out`.
    Json wait(Output& out) {
        out = process.wait();
        return Json::parse(read_file(verdict));
    }

private:
    Process start(Sandbox& sb, Bundle& b, std::vector<std::string> flags) {
        b.write();
        std::vector<std::string> args = {"run", "--bundle", b.dir, "--pid-file", pid_file, "--verdict", verdict};
        args.insert(args.end(), flags.begin(), flags.end());
        args.push_back(id);
        return sb.spawn_husk(args);
    }
};

}  // namespace

TEST_CASE("husk run --verdict: a program that exits gives reason exited, its code, usage, posture and limits",
          "[integration][verdict]") {
    Sandbox sb;
    Bundle b = with_args(sb, {"/bin/sh", "-c", "exit 3"});
    Json v = run_with_verdict(sb, b, sb.id("exited"), {"--timeout", "60s"});
    INFO(v.dump());
    CHECK(v["exit"]["reason"].str() == "exited");
    CHECK(v["exit"]["code"].num() == 3);
    CHECK(v["exit"]["signal"].num() == 0);
    CHECK(v["exit"]["detail"].str() == "exit code 3");
    CHECK(v["status"].num() == 3);
    CHECK_FALSE(v["started"].str().empty());
    CHECK(v["wallTimeMs"].num() >= 0);
    CHECK(v["usage"].contains("cpuUsec"));
    CHECK(v["security"]["noNewPrivileges"].boolean());
    // The test bundle runs as root without a user namespace: the host sees uid 0.
    CHECK_FALSE(v["security"]["userNamespace"].boolean());
    CHECK(v["security"]["hostUid"].num() == 0);
    CHECK(v["security"]["hostGid"].num() == 0);
    CHECK(v["limits"]["timeoutMs"].num() == 60000);
    CHECK(v["limits"]["killGraceMs"].num() == 5000);
    CHECK(v["limits"]["stopSignal"].str() == "SIGTERM");
    check_nothing_left(sb);
}

TEST_CASE("husk run --verdict: each limit that fires is the verdict's reason", "[integration][verdict]") {
    Sandbox sb;
    std::string limit = GENERATE(std::string("timeout"), std::string("output-limit"), std::string("cpu-limit"));
    INFO(limit);
    std::vector<std::string> args = {"/bin/sleep", "100"}, flags = {"--timeout", "300ms", "--kill-grace", "0"};
    if (limit == "output-limit") {
        args = {"/probe", "spam", "100000000"};
        flags = {"--output-limit", "1000"};
    } else if (limit == "cpu-limit") {
        args = {"/bin/sh", "-c", "while :; do :; done"};
        flags = {"--cpu-limit", "100ms", "--timeout", "60s"};
    }
    Bundle b = with_args(sb, args);
    Json v = run_with_verdict(sb, b, sb.id("limit"), flags);
    INFO(v.dump());
    CHECK(v["exit"]["reason"].str() == limit);
    CHECK(v["exit"]["signal"].num() == SIGKILL);
    CHECK(v["status"].num() == 128 + SIGKILL);
    if (limit == "output-limit") {
        CHECK(v["limits"]["outputLimitBytes"].num() == 1000);
        CHECK(v["usage"]["stdoutBytes"].num() + v["usage"]["stderrBytes"].num() <= 1000);
    }
    if (limit == "cpu-limit") CHECK(v["limits"]["cpuLimitUsec"].num() == 100000);
    check_nothing_left(sb);
}

TEST_CASE("husk run --verdict: refused before anything exists, setup-failed after, each once",
          "[integration][verdict]") {
    Sandbox sb;
    Bundle b = with_args(sb, {"/bin/true"});
    SECTION("a config husk refuses") {
        Output run;
        Json v = run_with_verdict(sb, b, sb.id("refused"), {"--timeout", "0"}, &run);
        CHECK(run.exit_code != 0);
        CHECK(v["exit"]["reason"].str() == "refused");
        CHECK(v["exit"]["code"].num() == -1);
        CHECK_THAT(v["exit"]["detail"].str(), Contains("timeout"));
        CHECK_THAT(run.err, Contains(v["exit"]["detail"].str()));
        CHECK_FALSE(v.contains("usage"));
    }
    SECTION("a bundle that is not there") {
        std::string verdict = sb.dir() + "/verdict.json";
        Output run = sb.husk({"run", "--bundle", sb.dir() + "/no-such-bundle", "--verdict", verdict, sb.id("nobundle")});
        INFO(run.describe());
        CHECK(run.exit_code == 2);
        std::string text = read_file(verdict);
        INFO(text);
        REQUIRE(lines(text).size() == 1);
        Json v = Json::parse(text);
        CHECK(v["exit"]["reason"].str() == "refused");
        CHECK(v["status"].num() == 2);
        CHECK_THAT(v["exit"]["detail"].str(), Contains("no-such-bundle"));
    }
    SECTION("a prestart hook that fails") {
        b.config["hooks"]["prestart"] = Json::array(
            {Json::object({{"path", "/bin/sh"}, {"args", Json::strings({"sh", "-c", "exit 1"})}})});
        Output run;
        Json v = run_with_verdict(sb, b, sb.id("hookfails"), {}, &run);
        CHECK(run.exit_code != 0);
        CHECK(v["exit"]["reason"].str() == "setup-failed");
        CHECK_THAT(to_lower(v["exit"]["detail"].str()), Contains("prestart"));
        CHECK(v.contains("limits"));
    }
    SECTION("a program that cannot be executed") {
        b.config["process"]["args"] = Json::strings({"/no/such/program"});
        Json v = run_with_verdict(sb, b, sb.id("noexec"), {});
        CHECK(v["exit"]["reason"].str() == "setup-failed");
        CHECK_THAT(v["exit"]["detail"].str(), Contains("/no/such/program"));
    }
    check_nothing_left(sb);
}

TEST_CASE("husk run --verdict: a command line that does not parse is still refused with one verdict",
          "[integration][verdict]") {
    Sandbox sb;
    Bundle b = with_args(sb, {"/bin/true"});
    b.write();
    std::string verdict = sb.dir() + "/verdict.json";
    // An unknown flag, a value the parser cannot convert, a flag with no value: each before or after --verdict.
    std::vector<std::string> args = GENERATE(std::vector<std::string>{"--no-such-flag", "--verdict", "VERDICT"},
                                             std::vector<std::string>{"--verdict=VERDICT", "--preserve-fds", "many"},
                                             std::vector<std::string>{"--verdict", "VERDICT", "--timeout"});
    for (auto& arg : args)
        if (auto at = arg.find("VERDICT"); at != std::string::npos) arg.replace(at, 7, verdict);
    std::vector<std::string> command = {"run", "--bundle", b.dir};
    command.insert(command.end(), args.begin(), args.end());
    command.push_back(sb.id("unparsed"));
    Output run = sb.husk(command);
    INFO(run.describe());
    CHECK(run.exit_code == 2);
    std::string text = read_file(verdict);
    INFO("verdict: " << text);
    REQUIRE(lines(text).size() == 1);
    Json v = Json::parse(text);
    CHECK(v["exit"]["reason"].str() == "refused");
    CHECK(v["status"].num() == 2);
    CHECK_FALSE(v["exit"]["detail"].str().empty());
    CHECK_THAT(run.err, Contains(v["exit"]["detail"].str()));
    check_nothing_left(sb);
}

TEST_CASE("husk run --verdict-fd writes the verdict once, in one line, to the fd it inherited",
          "[integration][verdict]") {
    Sandbox sb;
    Bundle b = with_args(sb, {"/bin/sh", "-c", "exit 0"});
    int pipe_fds[2];
    REQUIRE(::pipe2(pipe_fds, O_CLOEXEC) == 0);
    SpawnOptions options;
    options.extra_fds = {pipe_fds[1]};  // fd 3 of husk
    std::string id = sb.id("fd");
    bool refused = GENERATE(false, true);
    Output run = sb.run(b, id, {"--verdict-fd", "3", refused ? "--kill-grace=-1s" : "--kill-grace=1s"}, options);
    INFO(run.describe());
    ::close(pipe_fds[1]);
    std::string text;
    char buffer[4096];
    for (ssize_t n; (n = ::read(pipe_fds[0], buffer, sizeof buffer)) > 0;) text.append(buffer, static_cast<std::size_t>(n));
    ::close(pipe_fds[0]);
    INFO("verdict: " << text);
    REQUIRE(lines(text).size() == 1);
    Json v = Json::parse(text);
    CHECK(v["exit"]["reason"].str() == (refused ? "refused" : "exited"));
    CHECK(v["status"].num() == run.exit_code);
    check_nothing_left(sb);
}

TEST_CASE("husk run --verdict: a signal from outside is signaled, husk kill is killed", "[integration][verdict]") {
    Sandbox sb;
    bool by_husk_kill = GENERATE(false, true);
    Bundle b = with_args(sb, {"/bin/sleep", "100"});
    BackgroundRun run(sb, b, "signal", {});
    if (by_husk_kill) {
        require_ok(sb.husk({"kill", run.id, "KILL"}));
    } else {
        REQUIRE(::kill(run.init, SIGKILL) == 0);
    }
    Output out;
    Json v = run.wait(out);
    INFO(out.describe() << "; verdict: " << v.dump());
    CHECK(out.exit_code == 128 + SIGKILL);
    CHECK(v["exit"]["reason"].str() == (by_husk_kill ? "killed" : "signaled"));
    CHECK(v["status"].num() == 128 + SIGKILL);
    check_nothing_left(sb);
}

TEST_CASE("SIGTERM to husk run is forwarded, and a workload that ignores it is killed after the kill grace",
          "[integration][verdict][cancel]") {
    Sandbox sb;
    int signal = GENERATE(SIGTERM, SIGINT);
    // sleep is pid 1 of its pid namespace with no handler: the forwarded signal cannot end it (pid_namespaces(7)).
    Bundle b = with_args(sb, {"/bin/sleep", "100"});
    // The pid file is written before husk run's loop runs: a signal sent meanwhile waits for the loop.
    BackgroundRun run(sb, b, "cancel", {"--kill-grace", "1s"});
    auto sent = std::chrono::steady_clock::now();
    REQUIRE(::kill(run.process.pid(), signal) == 0);
    Output out;
    Json v = run.wait(out);
    auto took = std::chrono::duration_cast<Ms>(std::chrono::steady_clock::now() - sent);
    INFO(out.describe() << "; ended " << took.count() << " ms after the signal; verdict: " << v.dump());
    CHECK(out.exit_code == 128 + SIGKILL);
    CHECK(took >= Ms(900));
    CHECK(took < Ms(6000));
    CHECK(v["exit"]["reason"].str() == "killed");
    CHECK(v["exit"]["signal"].num() == SIGKILL);
    CHECK_THAT(v["exit"]["detail"].str(), Contains("cancel"));
    CHECK_THAT(v["exit"]["detail"].str(), Contains("1s kill grace"));
    check_nothing_left(sb);
}

TEST_CASE("SIGTERM to husk run that the workload obeys ends it at once, reason killed", "[integration][verdict][cancel]") {
    Sandbox sb;
    Bundle b = with_args(sb, {"/bin/sh", "-c", "trap 'exit 0' TERM; echo ready; while :; do sleep 0.05; done"});
    BackgroundRun run(sb, b, "polite", {});
    for (auto deadline = std::chrono::steady_clock::now() + Ms(10000);
         run.process.current_out().find("ready") == std::string::npos && std::chrono::steady_clock::now() < deadline;)
        std::this_thread::sleep_for(Ms(10));
    REQUIRE(::kill(run.process.pid(), SIGTERM) == 0);
    Output out;
    Json v = run.wait(out);
    INFO(out.describe() << "; verdict: " << v.dump());
    CHECK(out.exit_code == 0);
    CHECK(v["exit"]["reason"].str() == "killed");
    CHECK_THAT(v["exit"]["detail"].str(), Contains("SIGTERM"));
    check_nothing_left(sb);
}

TEST_CASE("husk run --die-with-parent: the caller SIGKILLed, the container is killed and cleaned up, the verdict says so",
          "[integration][verdict][die-with-parent]") {
    Sandbox sb;
    Bundle b = written_sleeper(sb);
    std::string id = sb.id("orphan");
    std::string pid_file = sb.dir() + "/init.pid", verdict = sb.dir() + "/verdict.json",
                husk_pid_file = sb.dir() + "/husk.pid";
    // The caller: a shell that starts husk in the background and waits; the test SIGKILLs the shell.
    std::vector<std::string> caller = {"/bin/sh", "-c", "\"$@\" & echo $! > " + husk_pid_file + "; wait", "caller",
                                       paths().husk, "--root", sb.root(), "run", "--bundle", b.dir, "--pid-file",
                                       pid_file, "--verdict", verdict, "--die-with-parent", id};
    Process shell = sb.spawn_command(caller);
    wait_for_pid_file(pid_file);
    pid_t husk = wait_for_pid_file(husk_pid_file);
    sb.track_pid(husk);
    const pid_t shell_pid = shell.pid();
    REQUIRE(::kill(shell_pid, SIGKILL) == 0);
    Output killed = shell.wait();
    CHECK(killed.exit_code == 128 + SIGKILL);
    auto deadline = std::chrono::steady_clock::now() + Ms(20000);
    while (read_file(verdict).empty() && std::chrono::steady_clock::now() < deadline) std::this_thread::sleep_for(Ms(10));
    while (process_alive(husk) && std::chrono::steady_clock::now() < deadline) std::this_thread::sleep_for(Ms(10));
    reap_if_ours(husk);
    std::string text = read_file(verdict);
    INFO("verdict: " << text);
    REQUIRE(lines(text).size() == 1);
    Json v = Json::parse(text);
    CHECK(v["exit"]["reason"].str() == "killed");
    CHECK(v["exit"]["signal"].num() == SIGKILL);
    CHECK_THAT(v["exit"]["detail"].str(), Contains("the caller (pid " + std::to_string(shell_pid) + ") died"));
    CHECK_FALSE(process_alive(husk));
    check_nothing_left(sb);
}

// Waits (at most 20 s) until start has recorded `started`: `running` is observed a moment before (exec.fifo
// consumed), and a husk killed in between leaves a record that never says the container started.
void wait_started(Sandbox& sb, const std::string& id) {
    auto deadline = std::chrono::steady_clock::now() + Ms(20000);
    for (;;) {
        Json st = sb.state(id);
        if (st["husk"].contains("started")) return;
        if (std::chrono::steady_clock::now() > deadline) FAIL("never started: " << st.dump());
        std::this_thread::sleep_for(Ms(20));
    }
}

// Waits (at most 20 s) until `pid` is gone; true if it is.
bool wait_gone(pid_t pid) {
    auto deadline = std::chrono::steady_clock::now() + Ms(20000);
    while (process_alive(pid) && std::chrono::steady_clock::now() < deadline) std::this_thread::sleep_for(Ms(10));
    return !process_alive(pid);
}

TEST_CASE("husk run --die-with-parent SIGKILLed itself: the kernel kills the container with it, state says only "
          "what was seen, and husk gc removes it",
          "[integration][verdict][die-with-parent][gc]") {
    Sandbox sb;
    Bundle b = written_sleeper(sb);
    std::string id = sb.id("lost"), pid_file = sb.dir() + "/init.pid";
    // The test is the caller and lives on: only husk, init's parent and the monitor, dies.
    Process husk = sb.spawn_husk({"run", "--bundle", b.dir, "--pid-file", pid_file, "--die-with-parent", id});
    pid_t init = wait_for_pid_file(pid_file);
    wait_started(sb, id);
    REQUIRE(::kill(husk.pid(), SIGKILL) == 0);
    CHECK(husk.wait().exit_code == 128 + SIGKILL);
    // init had PR_SET_PDEATHSIG; in its pid namespace nothing outlives it.
    CHECK(wait_gone(init));
    Json st = sb.state(id);
    INFO(st.dump());
    CHECK(st["status"].str() == "stopped");
    // Nobody saw init end: the reason is unknown, the exit code and signal are not invented.
    CHECK(st["husk"]["exit"]["reason"].str() == "unknown");
    CHECK_THAT(st["husk"]["exit"]["detail"].str(), Contains("--die-with-parent"));
    CHECK_FALSE(st["husk"]["exit"].contains("code"));
    // The caller lives, but husk run was to delete the container itself: gc does it in its place.
    Output gc = sb.husk({"gc"});
    INFO(gc.describe());
    CHECK(gc.exit_code == 0);
    CHECK(lines(gc.out) == std::vector<std::string>{id});
    check_nothing_left(sb);
}

TEST_CASE("husk run --die-with-parent --keep SIGKILLed: the container dies, and stays the living caller's to delete",
          "[integration][verdict][die-with-parent][gc]") {
    Sandbox sb;
    Bundle b = written_sleeper(sb);
    std::string id = sb.id("kept"), pid_file = sb.dir() + "/init.pid";
    Process husk =
        sb.spawn_husk({"run", "--keep", "--bundle", b.dir, "--pid-file", pid_file, "--die-with-parent", id});
    pid_t init = wait_for_pid_file(pid_file);
    wait_started(sb, id);
    REQUIRE(::kill(husk.pid(), SIGKILL) == 0);
    husk.wait();
    CHECK(wait_gone(init));
    CHECK(sb.state(id)["husk"]["exit"]["reason"].str() == "unknown");
    // --keep: the caller (this test) deletes it; gc leaves a container whose owner lives.
    Output gc = sb.husk({"gc"});
    INFO(gc.describe());
    CHECK(gc.exit_code == 0);
    CHECK(lines(gc.out).empty());
    require_ok(sb.husk({"delete", id}));
    check_nothing_left(sb);
}

TEST_CASE("husk run --die-with-parent without a pid namespace SIGKILLed: init dies with husk, what it left in the "
          "cgroup dies at husk gc",
          "[integration][verdict][die-with-parent][gc]") {
    Sandbox sb;
    std::string left = sb.dir() + "/left.pid";
    Bundle b = with_args(sb, {"/bin/sh", "-c", "sleep 100 & echo $! > /left.pid; wait"});
    Json namespaces = Json::array();
    for (Json& ns : b.config["linux"]["namespaces"].items())
        if (ns["type"].str() != "pid") namespaces.push_back(ns);
    b.config["linux"]["namespaces"] = namespaces;
    b.write();
    std::string id = sb.id("nopidns"), pid_file = sb.dir() + "/init.pid";
    Process husk = sb.spawn_husk({"run", "--bundle", b.dir, "--pid-file", pid_file, "--die-with-parent", id});
    pid_t init = wait_for_pid_file(pid_file);
    pid_t sleeper = wait_for_pid_file(b.rootfs() + "/left.pid");  // a host pid: no pid namespace
    wait_started(sb, id);
    sb.track_pid(sleeper);
    REQUIRE(::kill(husk.pid(), SIGKILL) == 0);
    husk.wait();
    CHECK(wait_gone(init));
    // Only init had the parent-death signal: its child was reparented and lives until the cgroup is killed.
    CHECK(process_alive(sleeper));
    Output gc = sb.husk({"gc"});
    INFO(gc.describe());
    CHECK(lines(gc.out) == std::vector<std::string>{id});
    CHECK(wait_gone(sleeper));
    check_nothing_left(sb);
}

TEST_CASE("husk gc deletes a stopped container whose caller is gone, never a running one nor one still owned",
          "[integration][gc]") {
    Sandbox sb;
    Bundle done = with_args(sb, {"/bin/true"});
    done.write();
    Bundle running = sb.bundle("running");
    running.config["process"]["args"] = Json::strings({"/bin/sleep", "100"});
    running.write();
    std::string orphan = sb.id("orphan"), owned = sb.id("owned"), alive = sb.id("alive");
    // A shell is the caller of each husk it starts (`; true` keeps it from exec'ing the last one), and exits.
    auto husk = [&](const std::string& args) { return paths().husk + " --root " + sb.root() + " " + args; };
    Output shell = sb.command({"/bin/sh", "-c",
                               husk("run --keep --bundle " + done.dir + " " + orphan) + "; " +
                                   husk("create --bundle " + running.dir + " " + alive) + " && " +
                                   husk("start " + alive) + "; true"});
    INFO(shell.describe());
    REQUIRE(shell.exit_code == 0);
    // The test process is the caller of this one, and lives.
    require_ok(sb.run(done, owned, {"--keep"}));
    CHECK(sb.state(orphan)["status"].str() == "stopped");
    CHECK(sb.state(alive)["status"].str() == "running");
    Output gc = sb.husk({"gc"});
    INFO(gc.describe());
    CHECK(gc.exit_code == 0);
    CHECK(lines(gc.out) == std::vector<std::string>{orphan});
    CHECK(sb.husk({"state", orphan}).exit_code != 0);
    CHECK(sb.state(owned)["status"].str() == "stopped");
    CHECK(sb.state(alive)["status"].str() == "running");
    require_ok(sb.husk({"delete", "--force", alive}));
    require_ok(sb.husk({"delete", owned}));
    check_nothing_left(sb);
}

TEST_CASE("husk create --die-with-parent: the caller SIGKILLed, the monitor kills the container and keeps its verdict "
          "until husk gc",
          "[integration][verdict][die-with-parent]") {
    Sandbox sb;
    std::string husk = paths().husk + " --root " + sb.root();
    std::string id = sb.id("orphan"), pid_file = sb.dir() + "/init.pid";
    Bundle b = written_sleeper(sb);
    // The caller of create: a shell that creates, starts and then waits in a builtin (opening a fifo nobody
    // writes: no child to leave behind); the test SIGKILLs the shell.
    std::string hold = sb.dir() + "/hold", started = sb.dir() + "/started";
    REQUIRE(::mkfifo(hold.c_str(), 0600) == 0);
    Process shell = sb.spawn_command({"/bin/sh", "-c",
                                      husk + " create --die-with-parent --bundle " + b.dir + " --pid-file " +
                                          pid_file + " " + id + " && " + husk + " start " + id + " && echo 1 > " + started +
                                          " && read x < " + hold});
    pid_t init = wait_for_pid_file(pid_file);
    // husk start has returned (it must not be killed half-way: this test is about the caller, not start).
    wait_for_pid_file(started);
    const pid_t shell_pid = shell.pid();
    REQUIRE(::kill(shell_pid, SIGKILL) == 0);
    shell.wait();
    CHECK(wait_gone(init));
    // Whoever asks after the caller (a supervisor, its next run) reads why the container ended.
    Json st = sb.state(id);
    INFO(st.dump());
    CHECK(st["status"].str() == "stopped");
    CHECK(st["husk"]["exit"]["reason"].str() == "killed");
    CHECK(st["husk"]["exit"]["signal"].num() == SIGKILL);
    CHECK_THAT(st["husk"]["exit"]["detail"].str(), Contains("the caller (pid " + std::to_string(shell_pid) + ") died"));
    // The caller is gone: the container is gc's once its monitor, which wrote the verdict, has exited.
    CHECK(wait_gone(static_cast<pid_t>(Json::parse(read_file(sb.root() + "/" + id + "/state.json"))["monitorPid"].num())));
    Output gc = sb.husk({"gc"});
    INFO(gc.describe());
    CHECK(lines(gc.out) == std::vector<std::string>{id});
    check_nothing_left(sb);
}

TEST_CASE("husk delete --force --print-state cancels a container and prints its final state with the monitor's verdict",
          "[integration][delete][cancel]") {
    Sandbox sb;
    std::string mode = GENERATE(std::string("run"), std::string("create"));
    INFO(mode);
    Bundle b = written_sleeper(sb);
    std::optional<BackgroundRun> run;
    std::string id;
    if (mode == "run") {
        run.emplace(sb, b, "cancelled", std::vector<std::string>{});
        id = run->id;
    } else {
        id = sb.id("cancelled");
        create_and_start(sb, b, id);
    }
    Output del = sb.husk({"delete", "--force", "--print-state", id});
    INFO(del.describe());
    CHECK(del.exit_code == 0);
    Json st = Json::parse(del.out);
    CHECK(st["id"].str() == id);
    CHECK(st["status"].str() == "stopped");
    const Json& exit = st["husk"]["exit"];
    CHECK(exit["reason"].str() == "killed");
    CHECK(exit["signal"].num() == SIGKILL);
    CHECK(exit["detail"].str() == "killed by SIGKILL sent by husk delete --force");
    CHECK(st["husk"].contains("usage"));
    if (run) {
        // husk run's own verdict is the same: the monitor recorded it before the state went away.
        Output out;
        Json v = run->wait(out);
        INFO(out.describe() << "; verdict " << v.dump());
        CHECK(out.exit_code == 128 + SIGKILL);
        CHECK(v["exit"]["reason"].str() == "killed");
        CHECK(v["exit"]["detail"].str() == exit["detail"].str());
    }
    CHECK(sb.husk({"state", id}).exit_code != 0);  // gone
    // An unknown id with --force is not an error, and there is no state to print.
    Output again = sb.husk({"delete", "--force", "--print-state", id});
    CHECK(again.exit_code == 0);
    CHECK(again.out.empty());
    check_nothing_left(sb);
}
