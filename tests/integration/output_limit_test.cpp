// The output cap (run.husk.output-limit; docs/husk.8.md, "LIMITS"): the monitor pumps stdout and stderr, delivers
// exactly up to the cap, kills at the first byte past it (reason output-limit), drains the tail after exit,
// and counts both streams in husk.usage. Bytes are checked in the files husk's stdio pointed to.
#include <catch2/catch.hpp>

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <unistd.h>

#include <thread>

#include "harness.hpp"
#include "monitor_support.hpp"

using namespace husk::test;
using Catch::Matchers::Contains;
using Catch::Matchers::StartsWith;

namespace {

// busybox sh: N numbered lines on stdout and on stderr, interleaved.
std::vector<std::string> numbered_lines(int count) {
    return {"/bin/sh", "-c",
            "i=0; while [ $i -lt " + std::to_string(count) + " ]; do echo out$i; echo err$i >&2; i=$((i+1)); done"};
}

bool numbered_in_order(const std::string& text, const std::string& prefix, int count) {
    std::vector<std::string> got = lines(text);
    if (static_cast<int>(got.size()) != count) return false;
    for (int i = 0; i < count; ++i)
        if (got[i] != prefix + std::to_string(i)) return false;
    return true;
}

const Json& usage(const Json& st) { return st["husk"]["usage"]; }

// A pipe the test reads itself. Shallow (the default), one page deep: before the test reads, the monitor can
// deliver at most 4 KiB into it and then waits for room, so it cannot see a byte past a larger cap until the
// test lets it (husk leaves a pipe size someone chose as it is). `kernel_default`: the size pipe(2) gives.
class ShallowPipe {
public:
    explicit ShallowPipe(bool kernel_default = false) {
        int fds[2];
        REQUIRE(::pipe2(fds, O_CLOEXEC) == 0);
        read_ = fds[0];
        write_ = fds[1];
        if (!kernel_default) REQUIRE(::fcntl(write_, F_SETPIPE_SZ, 4096) == 4096);
    }
    int size() const { return ::fcntl(read_, F_GETPIPE_SZ); }
    ~ShallowPipe() {
        close_write();
        ::close(read_);
    }
    ShallowPipe(const ShallowPipe&) = delete;
    ShallowPipe& operator=(const ShallowPipe&) = delete;
    int write_end() const { return write_; }
    void close_write() {
        if (write_ >= 0) ::close(write_);
        write_ = -1;
    }
    // Everything until EOF (every writer gone), giving up after `timeout`.
    std::string read_to_eof(Ms timeout = Ms(20000)) {
        std::string got;
        auto deadline = std::chrono::steady_clock::now() + timeout;
        for (;;) {
            auto left = std::chrono::duration_cast<Ms>(deadline - std::chrono::steady_clock::now()).count();
            pollfd p{read_, POLLIN, 0};
            if (left <= 0 || ::poll(&p, 1, static_cast<int>(left)) <= 0) break;
            char buffer[65536];
            ssize_t n = ::read(read_, buffer, sizeof buffer);
            if (n <= 0) break;
            got.append(buffer, static_cast<size_t>(n));
        }
        return got;
    }

private:
    int read_ = -1, write_ = -1;
};

// `husk --root ROOT ARGS...` with its stdout on `pipe` (the harness gives commands files, not pipes).
Process spawn_husk_into(Sandbox& sb, ShallowPipe& pipe, std::vector<std::string> args) {
    std::vector<std::string> argv = {"/bin/sh", "-c", "exec \"$@\" >&3 3>&-", "sh", paths().husk, "--root", sb.root()};
    argv.insert(argv.end(), args.begin(), args.end());
    SpawnOptions options;
    options.extra_fds = {pipe.write_end()};
    Process process = sb.spawn_command(argv, options);
    pipe.close_write();
    return process;
}

bool wait_for_output_of(const Process& process, std::string_view text) {
    auto deadline = std::chrono::steady_clock::now() + Ms(10000);
    while (process.current_out().find(text) == std::string::npos) {
        if (std::chrono::steady_clock::now() > deadline) return false;
        std::this_thread::sleep_for(Ms(10));
    }
    return true;
}

// The verdict of a workload that wrote past the cap and exited 0 before husk could see it.
void check_exited_after_output_limit(const Json& exit) {
    CHECK(exit["reason"].str() == "output-limit");
    CHECK(exit["code"].num() == 0);  // what the kernel reported, not a made-up code
    CHECK(exit["signal"].num() == 0);
    CHECK((exit.contains("exitedAfterLimit") && exit["exitedAfterLimit"].boolean()));
    CHECK_THAT(exit["detail"].str(),
               StartsWith("stdout+stderr went past the output limit 16KiB (16384 bytes); delivered up to the limit"));
    CHECK_THAT(exit["detail"].str(), Contains("; the workload exited on its own with code 0 after the limit fired"));
}

}  // namespace

TEST_CASE("an output flood is cut at exactly the cap, killed, and state says output-limit",
          "[integration][monitor][output]") {
    Sandbox sb;
    std::string mode = GENERATE(std::string("run"), std::string("create"));
    Bundle b = with_args(sb, {"/probe", "spam", "100000000"});
    std::string id = sb.id("flood");
    Output out;
    if (mode == "run") {
        out = sb.run(b, id, {"--keep", "--output-limit", "64k"});  // any spelling of a size: husk(8) SIZES
        INFO(out.describe());
        CHECK(out.exit_code == 128 + SIGKILL);
    } else {
        out = sb.create(b, id, {"--output-limit", "64KiB"});
        require_ok(out);
        require_ok(sb.husk({"start", id}));
    }
    Json st = wait_for_exit(sb, id);
    INFO(mode << " state: " << st.dump());
    CHECK(out.current_out().size() == 65536);
    CHECK(out.current_out() == std::string(65536, 'x'));
    const Json& exit = st["husk"]["exit"];
    CHECK(exit["reason"].str() == "output-limit");
    CHECK(exit["signal"].num() == SIGKILL);
    CHECK(exit["detail"].str() ==
          "stdout+stderr went past the output limit 64KiB (65536 bytes); delivered up to the limit, killing the container");
    CHECK(usage(st)["stdoutBytes"].num() == 65536);
    CHECK(usage(st)["stderrBytes"].num() == 0);
    delete_and_check(sb, id);
}

// Through a pipe of the kernel's default size, which the pump deepens to 1 MiB (a splice may then move up to
// 1 MiB at once): the cap still cuts exactly, also inside a page, and exactly the cap is within it.
TEST_CASE("through a deepened pipe exactly the cap is delivered: the cap within the limit, cap+1 killed",
          "[integration][monitor][output]") {
    constexpr long cap = 1000000;  // not a multiple of the page: the last splice splits a page of the pipe
    long written = GENERATE(1000000L, 1000001L, 3L << 20);  // cap, cap + 1, 3 MiB
    Sandbox sb;
    Bundle b = with_args(sb, {"/probe", "spam", std::to_string(written)});
    b.write();
    std::string id = sb.id("deep");
    ShallowPipe pipe(true);
    REQUIRE(pipe.size() == 16 * ::sysconf(_SC_PAGESIZE));
    Process run = spawn_husk_into(sb, pipe, {"run", "--keep", "--bundle", b.dir, "--output-limit", std::to_string(cap), id});
    std::string delivered = pipe.read_to_eof();
    Output out = run.wait();
    INFO(written << " bytes: " << out.describe());
    CHECK(pipe.size() == (1 << 20));
    CHECK(delivered == std::string(static_cast<std::size_t>(cap), 'x'));
    Json st = wait_for_exit(sb, id);
    INFO("state: " << st.dump());
    CHECK(usage(st)["stdoutBytes"].num() == cap);
    if (written == cap) {
        CHECK(out.exit_code == 0);
        CHECK(st["husk"]["exit"]["reason"].str() == "exited");
    } else {
        CHECK(st["husk"]["exit"]["reason"].str() == "output-limit");
        CHECK((out.exit_code == 128 + SIGKILL || out.exit_code == 122));  // 122: it exited before the kill landed
    }
    delete_and_check(sb, id);
}

TEST_CASE("below the cap both streams arrive whole and in order, and husk.usage counts each",
          "[integration][monitor][output]") {
    Sandbox sb;
    Bundle b = with_args(sb, numbered_lines(500));
    std::string id = sb.id("lines");
    Output run = sb.run(b, id, {"--keep", "--output-limit", "1MiB"});
    INFO(run.describe());
    CHECK(run.exit_code == 0);
    CHECK(numbered_in_order(run.out, "out", 500));
    CHECK(numbered_in_order(run.err, "err", 500));
    Json st = wait_for_exit(sb, id);
    CHECK(st["husk"]["exit"]["reason"].str() == "exited");
    CHECK(usage(st)["stdoutBytes"].num() == static_cast<double>(run.out.size()));
    CHECK(usage(st)["stderrBytes"].num() == static_cast<double>(run.err.size()));
    delete_and_check(sb, id);
}

TEST_CASE("output exactly at the cap is within the limit", "[integration][monitor][output]") {
    Sandbox sb;
    Bundle b = with_args(sb, {"/probe", "spam", "4096"});
    std::string id = sb.id("exact");
    Output run = sb.run(b, id, {"--keep", "--output-limit", "4096"});
    INFO(run.describe());
    CHECK(run.exit_code == 0);
    CHECK(run.out.size() == 4096);
    Json st = wait_for_exit(sb, id);
    CHECK(st["husk"]["exit"]["reason"].str() == "exited");
    CHECK(usage(st)["stdoutBytes"].num() == 4096);
    delete_and_check(sb, id);
}

// stderr is written (and its writer gone) before stdout is: the pump takes the pipes in the order they became
// readable, also when it runs late and finds both holding data (open_pump_pipes: the epoll set watches them
// from before init exists; made later, it would list them stdout first).
TEST_CASE("stdout and stderr share one cap", "[integration][monitor][output]") {
    Sandbox sb;
    Bundle b = with_args(sb, {"/bin/sh", "-c", "/probe spam 3000 >&2; /probe spam 3000; sleep 100"});
    std::string id = sb.id("shared");
    Output run = sb.run(b, id, {"--keep", "--output-limit", "5000"});
    INFO(run.describe());
    CHECK(run.exit_code == 128 + SIGKILL);
    CHECK(run.err.size() == 3000);
    CHECK(run.out.size() == 2000);
    Json st = wait_for_exit(sb, id);
    CHECK(st["husk"]["exit"]["reason"].str() == "output-limit");
    CHECK(usage(st)["stdoutBytes"].num() == 2000);
    CHECK(usage(st)["stderrBytes"].num() == 3000);
    delete_and_check(sb, id);
}

TEST_CASE("the tail written just before exit is drained, not lost", "[integration][monitor][output]") {
    Sandbox sb;
    // More than a pipe holds, written as fast as possible by a process that exits right after.
    Bundle b = with_args(sb, {"/probe", "spam", "300000"});
    std::string id = sb.id("tail");
    Output created = sb.create(b, id, {"--output-limit", "10MB"});
    require_ok(created);
    require_ok(sb.husk({"start", id}));
    Json st = wait_for_exit(sb, id);
    CHECK(created.current_out().size() == 300000);
    CHECK(st["husk"]["exit"]["reason"].str() == "exited");
    CHECK(usage(st)["stdoutBytes"].num() == 300000);
    delete_and_check(sb, id);
}

TEST_CASE("a container that closes its stdout early keeps its stderr", "[integration][monitor][output]") {
    Sandbox sb;
    Bundle b = with_args(sb, {"/bin/sh", "-c", "echo first; exec 1>&-; echo second >&2; sleep 0.2; echo third >&2"});
    std::string id = sb.id("closed");
    Output run = sb.run(b, id, {"--keep", "--output-limit", "1KiB"});
    INFO(run.describe());
    CHECK(run.exit_code == 0);
    CHECK(run.out == "first\n");
    CHECK(run.err == "second\nthird\n");
    Json st = wait_for_exit(sb, id);
    CHECK(st["husk"]["exit"]["reason"].str() == "exited");
    delete_and_check(sb, id);
}

// A race: the workload writes past the cap into the pipe and exits 0 before the monitor reads the
// byte past it, so the kill lands on nobody. Made deterministic: the output is a one-page pipe the test reads
// only after init has exited, so the monitor can only ever find the excess afterwards.
TEST_CASE("a workload that exits 0 after writing past the cap makes husk run exit 122, the record keeps code 0",
          "[integration][monitor][output]") {
    Sandbox sb;
    Bundle b = with_args(sb, {"/probe", "spam", "16385"});
    b.write();
    std::string id = sb.id("raced");
    std::string pid_file = sb.dir() + "/raced.pid";
    ShallowPipe pipe;
    Process run = spawn_husk_into(sb, pipe, {"run", "--keep", "--bundle", b.dir, "--pid-file", pid_file,
                                             "--output-limit", "16KiB", id});
    wait_until_init_exited(pid_file);
    std::string delivered = pipe.read_to_eof();
    Output out = run.wait();
    INFO(out.describe());
    CHECK(delivered == std::string(16384, 'x'));
    // Never 0 when a limit fired: the status for "output-limit, the workload exited on its own".
    CHECK(out.exit_code == 122);
    Json st = wait_for_exit(sb, id);
    INFO("state: " << st.dump());
    check_exited_after_output_limit(st["husk"]["exit"]);
    CHECK(usage(st)["stdoutBytes"].num() == 16384);
    delete_and_check(sb, id);
}

TEST_CASE("after create and start, state and the events stream say the workload exited 0 after the output limit",
          "[integration][monitor][output][events]") {
    Sandbox sb;
    Bundle b = with_args(sb, {"/probe", "spam", "16385"});
    b.write();
    std::string id = sb.id("raced-detached");
    std::string pid_file = sb.dir() + "/raced-detached.pid";
    ShallowPipe pipe;
    Output created = spawn_husk_into(sb, pipe, {"create", "--bundle", b.dir, "--pid-file", pid_file,
                                                "--output-limit", "16KiB", id}).wait();
    require_ok(created);
    Process events = sb.spawn_husk({"events", "--interval", "1h", id});
    REQUIRE(wait_for_output_of(events, "\"created\""));
    require_ok(sb.husk({"start", id}));
    wait_until_init_exited(pid_file);
    CHECK(pipe.read_to_eof() == std::string(16384, 'x'));
    Json st = wait_for_exit(sb, id);
    INFO("state: " << st.dump());
    check_exited_after_output_limit(st["husk"]["exit"]);
    Output stream = events.wait();
    INFO(stream.describe());
    std::vector<std::string> got = lines(stream.out);
    REQUIRE_FALSE(got.empty());
    Json stopped = Json::parse(got.back());
    CHECK(stopped["type"].str() == "stopped");
    check_exited_after_output_limit(stopped["data"]);
    delete_and_check(sb, id);
}

TEST_CASE("a slow reader slows the container down and loses nothing", "[integration][monitor][output]") {
    Sandbox sb;
    Bundle b = with_args(sb, {"/probe", "spam", "2000000"});
    std::string id = sb.id("slow");
    b.write();
    // The reader starts a second late: the pipes fill and the container waits for it.
    std::string husk = paths().husk + " --root " + sb.root() + " run --bundle " + b.dir + " --output-limit 10MB " + id;
    Output out = sb.command({"/bin/sh", "-c", husk + " | (sleep 1; wc -c)"});
    INFO(out.describe());
    CHECK(out.exit_code == 0);
    CHECK(lines(out.out) == std::vector<std::string>{"2000000"});
    check_nothing_left(sb);
}

TEST_CASE("a reader that goes away ends the container's writes as without a cap", "[integration][monitor][output]") {
    Sandbox sb;
    Bundle b = with_args(sb, {"/probe", "spam", "100000000"});
    std::string id = sb.id("gone");
    b.write();
    std::string husk = paths().husk + " --root " + sb.root() + " run --keep --bundle " + b.dir + " --output-limit 1GB " + id;
    Output out = sb.command({"/bin/sh", "-c", husk + " | head -c 1000 >/dev/null"});
    INFO(out.describe());
    CHECK(out.exit_code == 0);
    Json st = wait_for_exit(sb, id);
    INFO("state: " << st.dump());
    // The probe's write failed (EPIPE, or SIGPIPE): the container ended by itself, not by husk.
    CHECK((st["husk"]["exit"]["reason"].str() == "exited" || st["husk"]["exit"]["reason"].str() == "signaled"));
    CHECK(usage(st)["stdoutBytes"].num() >= 1000);
    delete_and_check(sb, id);
}

TEST_CASE("an output cap with a terminal is refused and leaves nothing behind", "[integration][monitor][output]") {
    Sandbox sb;
    Bundle b = with_args(sb, {"/bin/true"});
    b.config["process"]["terminal"] = true;
    std::string id = sb.id("tty");
    Output out = sb.create(b, id, {"--output-limit", "1KiB", "--console-socket", sb.root() + "/none.sock"});
    INFO(out.describe());
    CHECK(out.exit_code == 1);
    CHECK_THAT(out.err, Contains("run.husk.output-limit (--output-limit): cannot be enforced with process.terminal"));
    check_nothing_left(sb);
}
