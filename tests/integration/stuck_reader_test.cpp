// A reader of husk's stdout that is stuck (never reads, or a terminal stopped by ^S / XOFF) must not stop the
// monitor's loop: the wall-time limit still stops the container on time, through the terminal relay and through
// the output pump, whatever the output is (pipe, terminal, socket). And a slow reader still gets every byte.
// The test holds the other end of husk's stdout and reads it (or not) itself.
#include <catch2/catch.hpp>

#include <fcntl.h>
#include <poll.h>
#include <pty.h>
#include <signal.h>
#include <sys/socket.h>
#include <termios.h>
#include <unistd.h>

#include <cstdlib>
#include <sstream>
#include <thread>

#include "harness.hpp"
#include "monitor_support.hpp"

using namespace husk::test;

namespace {

// process.terminal without --console-socket, --output-limit, or --output-format json (the pump framing lines)
enum class Route { relay, pump, json };
enum class OutputKind { pipe, stopped_terminal, socket };

std::string route_name(Route route) {
    switch (route) {
        case Route::relay: return "terminal relay";
        case Route::pump: return "output pump";
        case Route::json: return "output pump framing JSON lines";
    }
    return "?";
}
std::string kind_name(OutputKind kind) {
    switch (kind) {
        case OutputKind::pipe: return "a pipe";
        case OutputKind::stopped_terminal: return "a terminal stopped by XOFF";
        case OutputKind::socket: return "a socket";
    }
    return "?";
}

// husk's stdout: `writer` goes to husk (and is closed here once husk has it), `reader` stays with the test.
class HeldOutput {
public:
    explicit HeldOutput(OutputKind kind) {
        int fds[2] = {-1, -1};
        if (kind == OutputKind::pipe) {
            REQUIRE(::pipe2(fds, O_CLOEXEC) == 0);
            reader_ = fds[0];
            writer_ = fds[1];
        } else if (kind == OutputKind::socket) {
            REQUIRE(::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) == 0);
            reader_ = fds[0];
            writer_ = fds[1];
        } else {
            REQUIRE(::openpty(&reader_, &writer_, nullptr, nullptr, nullptr) == 0);
            ::fcntl(reader_, F_SETFD, FD_CLOEXEC);
            ::fcntl(writer_, F_SETFD, FD_CLOEXEC);
            REQUIRE(::tcflow(writer_, TCOOFF) == 0);  // as if the user typed ^S: writes to it wait for ^Q
        }
    }
    ~HeldOutput() {
        close_writer();
        release();
    }
    HeldOutput(const HeldOutput&) = delete;
    HeldOutput& operator=(const HeldOutput&) = delete;
    int writer() const { return writer_; }
    int reader() const { return reader_; }
    void close_writer() {
        if (writer_ >= 0) ::close(writer_);
        writer_ = -1;
    }
    // The reader goes away: husk's next write fails (EPIPE, EIO on a hung-up terminal).
    void release() {
        if (reader_ >= 0) ::close(reader_);
        reader_ = -1;
    }

private:
    int reader_ = -1, writer_ = -1;
};

// `husk --root ROOT ARGS...` with its stdout on `fd`; stdin /dev/null, stderr the harness's file.
Process spawn_husk_onto(Sandbox& sb, int fd, std::vector<std::string> args) {
    std::vector<std::string> argv = {"/bin/sh", "-c", "exec \"$@\" >&3 3>&-", "sh", paths().husk, "--root", sb.root()};
    argv.insert(argv.end(), args.begin(), args.end());
    SpawnOptions options;
    options.extra_fds = {fd};
    options.timeout = Ms(120000);
    return sb.spawn_command(argv, options);
}

Bundle writer_bundle(Sandbox& sb, Route route, const std::string& script) {
    Bundle b = with_args(sb, {"/bin/sh", "-c", script});
    b.config["process"]["terminal"] = route == Route::relay;
    b.write();
    return b;
}

std::vector<std::string> run_args(Route route, const Bundle& b, const std::string& pid_file, const std::string& id,
                                  std::vector<std::string> extra) {
    std::vector<std::string> args = {"run", "--keep", "--bundle", b.dir, "--pid-file", pid_file};
    if (route == Route::pump) args.insert(args.end(), {"--output-limit", "1GB"});
    if (route == Route::json) args.insert(args.end(), {"--output-format", "json"});
    args.insert(args.end(), extra.begin(), extra.end());
    args.push_back(id);
    return args;
}

// Reads `fd` until EOF (or EIO: a pty whose slave is closed), a little at a time with a pause between reads,
// so that whatever feeds it keeps finding it full.
std::string read_slowly(int fd) {
    std::string got;
    for (;;) {
        pollfd p{fd, POLLIN, 0};
        if (::poll(&p, 1, 30000) <= 0) break;
        char buffer[4096];
        ssize_t n = ::read(fd, buffer, sizeof buffer);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;
        got.append(buffer, static_cast<size_t>(n));
        std::this_thread::sleep_for(std::chrono::microseconds(500));
    }
    return got;
}

// The first `size` bytes of "abc...xyz0123456789" repeated: what `yes PATTERN | tr -d '\n' | head -c SIZE` writes.
std::string pattern(size_t size) {
    const std::string unit = "abcdefghijklmnopqrstuvwxyz0123456789";
    std::string out;
    out.reserve(size + unit.size());
    while (out.size() < size) out += unit;
    out.resize(size);
    return out;
}

// The program's stdout out of --output-format json's lines (ASCII here, so never base64); the last line must be
// the verdict.
std::string json_stdout(const std::string& stream) {
    std::vector<std::string> all = lines(stream);
    REQUIRE_FALSE(all.empty());
    CHECK(Json::parse(all.back())["stream"].str() == "verdict");
    std::string out;
    for (std::size_t i = 0; i + 1 < all.size(); ++i) {
        Json line = Json::parse(all[i]);
        CHECK(line["stream"].str() == "stdout");
        CHECK_FALSE(line.contains("encoding"));
        out += line["data"].str();
    }
    return out;
}

// CPU time `pid` has used (utime + stime, proc(5) fields 14 and 15), in clock ticks.
long cpu_ticks(pid_t pid) {
    std::string stat = read_file("/proc/" + std::to_string(pid) + "/stat");
    size_t end = stat.rfind(')');
    if (end == std::string::npos) return -1;
    std::istringstream fields(stat.substr(end + 2));
    std::string field;
    long utime = 0, stime = 0;
    for (int i = 3; i <= 15 && fields >> field; ++i) {
        if (i == 14) utime = std::stol(field);
        if (i == 15) stime = std::stol(field);
    }
    return utime + stime;
}

// Where husk is, for a failure's message: its state, what it waits in, its kernel stack.
std::string whereabouts(pid_t pid) {
    std::string proc = "/proc/" + std::to_string(pid);
    return "husk stat: " + read_file(proc + "/stat") + "; wchan: " + read_file(proc + "/wchan") + "; stack:\n" +
           read_file(proc + "/stack");
}

// wait_until_init_exited, saying where husk is when init outlives the bound.
void wait_for_init_end(const std::string& pid_file, pid_t husk) {
    auto deadline = std::chrono::steady_clock::now() + Ms(20000);
    pid_t init = 0;
    while (init <= 0 && std::chrono::steady_clock::now() < deadline) {
        init = static_cast<pid_t>(std::atoi(read_file(pid_file).c_str()));
        if (init <= 0) std::this_thread::sleep_for(Ms(10));
    }
    while (init > 0 && process_alive(init) && std::chrono::steady_clock::now() < deadline)
        std::this_thread::sleep_for(Ms(10));
    if (init <= 0 || process_alive(init)) FAIL("init " << init << " still there after 20 s; " << whereabouts(husk));
    reap_if_ours(init);
}

}  // namespace

TEST_CASE("a reader that never reads husk's stdout does not stop the wall-time limit",
          "[integration][monitor][stuck-reader][output-format]") {
    auto [route, kind] = GENERATE(std::pair{Route::relay, OutputKind::pipe},
                                  std::pair{Route::relay, OutputKind::stopped_terminal},
                                  std::pair{Route::pump, OutputKind::pipe},
                                  std::pair{Route::pump, OutputKind::stopped_terminal},
                                  std::pair{Route::pump, OutputKind::socket},
                                  std::pair{Route::json, OutputKind::pipe},
                                  std::pair{Route::json, OutputKind::stopped_terminal},
                                  std::pair{Route::json, OutputKind::socket});
    // How husk's wait for the stuck reader ends, once the container is gone: the reader goes away, or the
    // caller tells husk to stop (SIGTERM: pending, husk blocks it to forward it, and nothing is left to forward to).
    bool by_signal = GENERATE(false, true);
    INFO(route_name(route) << " into " << kind_name(kind) << (by_signal ? ", ended by SIGTERM" : ", reader gone"));
    Sandbox sb;
    // Fills whatever is between it and the reader, then blocks in write until the limit ends it.
    Bundle b = writer_bundle(sb, route, "exec /probe spam 100000000000");
    std::string id = sb.id("stuck");
    std::string pid_file = sb.dir() + "/stuck.pid";
    HeldOutput output(kind);
    auto started = std::chrono::steady_clock::now();
    Process husk = spawn_husk_onto(sb, output.writer(),
                                   run_args(route, b, pid_file, id, {"--timeout", "1s", "--kill-grace", "0"}));
    output.close_writer();
    // The end within 20 s: without the fix the loop sat in a write and the timer never fired.
    wait_for_init_end(pid_file, husk.pid());
    auto stopped = std::chrono::duration_cast<Ms>(std::chrono::steady_clock::now() - started);
    INFO("init ended " << stopped.count() << " ms after husk started");
    CHECK(stopped >= Ms(1000));
    // Waiting for the reader, husk sleeps: a paused pipe or pty is out of its epoll set (a hung-up one would
    // report EPOLLHUP at every wait otherwise), so it is not woken for nothing. 2 s of a spin is far more than
    // 10 ticks even beside a loaded machine's other work.
    long before = cpu_ticks(husk.pid());
    std::this_thread::sleep_for(Ms(2000));
    long spent = cpu_ticks(husk.pid()) - before;
    INFO(whereabouts(husk.pid()));
    CHECK(spent < 10);
    // husk waits for its reader to take what the container wrote before the limit (no byte is dropped while
    // the reader is there, however slow); the reader going away, or a signal to husk, ends that.
    auto asked = std::chrono::steady_clock::now();
    if (by_signal) ::kill(husk.pid(), SIGTERM);
    else output.release();
    Output out = husk.wait();
    INFO(out.describe());
    CHECK(std::chrono::steady_clock::now() - asked < Ms(10000));
    CHECK(out.exit_code == 128 + SIGKILL);
    Json st = wait_for_exit(sb, id);
    INFO("state: " << st.dump());
    CHECK(st["husk"]["exit"]["reason"].str() == "timeout");
    CHECK(st["husk"]["exit"]["signal"].num() == SIGKILL);
    delete_and_check(sb, id);
}

TEST_CASE("a slow reader of husk's stdout gets every byte the container wrote",
          "[integration][monitor][stuck-reader][output-format]") {
    Route route = GENERATE(Route::relay, Route::pump, Route::json);
    INFO(route_name(route));
    Sandbox sb;
    constexpr size_t size = 4 << 20;
    // No newline: the container's pty would send it as CR LF (ONLCR).
    Bundle b = writer_bundle(sb, route,
                             "yes abcdefghijklmnopqrstuvwxyz0123456789 | tr -d '\\n' | head -c " + std::to_string(size));
    std::string id = sb.id("slow");
    std::string pid_file = sb.dir() + "/slow.pid";
    HeldOutput output(OutputKind::pipe);
    REQUIRE(::fcntl(output.writer(), F_SETPIPE_SZ, 4096) == 4096);  // one page: full after every write
    Process husk = spawn_husk_onto(sb, output.writer(), run_args(route, b, pid_file, id, {}));
    output.close_writer();
    std::this_thread::sleep_for(Ms(500));  // everything on the way fills first
    std::string got = read_slowly(output.reader());
    Output out = husk.wait();
    INFO(out.describe());
    CHECK(out.exit_code == 0);
    if (route == Route::json) got = json_stdout(got);
    CHECK(got.size() == size);
    CHECK((got == pattern(size)));
    Json st = wait_for_exit(sb, id);
    CHECK(st["husk"]["exit"]["reason"].str() == "exited");
    delete_and_check(sb, id);
}

TEST_CASE("a terminal stopped by XOFF and started again by XON gets every byte", "[integration][monitor][stuck-reader]") {
    Sandbox sb;
    constexpr size_t size = 1 << 20;
    Bundle b = writer_bundle(sb, Route::relay,
                             "yes abcdefghijklmnopqrstuvwxyz0123456789 | tr -d '\\n' | head -c " + std::to_string(size));
    std::string id = sb.id("xoff");
    std::string pid_file = sb.dir() + "/xoff.pid";
    HeldOutput output(OutputKind::stopped_terminal);
    int slave = ::dup(output.writer());  // kept to send XON through
    REQUIRE(slave >= 0);
    Process husk = spawn_husk_onto(sb, output.writer(), run_args(Route::relay, b, pid_file, id, {"--timeout", "1s", "--kill-grace", "0"}));
    output.close_writer();
    // While the terminal is stopped the timer still fires: ended at ~1 s, the output waiting.
    wait_until_init_exited(pid_file);
    REQUIRE(::tcflow(slave, TCOON) == 0);
    ::close(slave);
    std::string got = read_slowly(output.reader());
    Output out = husk.wait();
    INFO(out.describe());
    Json st = wait_for_exit(sb, id);
    INFO("state: " << st.dump());
    CHECK(st["husk"]["exit"]["reason"].str() == "timeout");
    // What the container wrote before the limit, in order, nothing lost on the way: a prefix of the pattern.
    CHECK(got.size() > 0);
    CHECK((got == pattern(got.size())));
    delete_and_check(sb, id);
}
