// A terminal without a console socket: `husk run` in the foreground with process.terminal keeps the pty master
// and relays its own stdin and stdout to it (raw mode restored, window size copied, SIGWINCH resizes, the exit
// status mirrored), as `runc run` does; `husk exec -t` the same. The caller here is a pty the test holds the master of.
#include <catch2/catch.hpp>

#include <signal.h>
#include <unistd.h>

#include "harness.hpp"
#include "exec_support.hpp"
#include "terminal_support.hpp"

using namespace husk::test;
using Catch::Matchers::Contains;

namespace {

Bundle shell_bundle(Sandbox& sb, const std::string& script) {
    Bundle b = sb.bundle();
    b.config["process"]["terminal"] = true;
    b.config["process"]["args"] = Json::strings({"/bin/sh", "-c", script});
    b.write();
    return b;
}

// `husk run` with the test's terminal as its stdio and controlling terminal.
Process run_in(Sandbox& sb, TestTerminal& terminal, const Bundle& b, const std::string& id) {
    SpawnOptions options;
    options.terminal = terminal.slave();
    Process husk = sb.spawn_husk({"run", "--bundle", b.dir, id}, options);
    terminal.close_slave();  // husk and the container hold it now: the master hangs up when they are done
    return husk;
}

// husk's end: everything its terminal shows until the pty hangs up, then its exit.
Output finish(TestTerminal& terminal, Process& husk) {
    terminal.rest();
    Output ran = husk.wait();
    UNSCOPED_INFO(ran.describe() << "; terminal: " << terminal.seen());
    return ran;
}

}  // namespace

TEST_CASE("run relays its terminal: the process sees a pty of the caller's size, output arrives, status mirrored",
          "[integration][terminal]") {
    Sandbox sb;
    TestTerminal terminal;
    terminal.set_size(33, 91);
    termios before = terminal.mode();
    Bundle b = shell_bundle(sb, "tty; stty size; echo hi; exit 7");
    Process husk = run_in(sb, terminal, b, sb.id("tty"));
    Output ran = finish(terminal, husk);
    const std::string& output = terminal.seen();
    CHECK(ran.exit_code == 7);
    CHECK_THAT(output, Contains("/dev/pts/"));
    CHECK_THAT(output, Contains("33 91"));
    CHECK_THAT(output, Contains("hi\r\n"));
    CHECK(same_mode(terminal.mode(), before));
    check_nothing_left(sb);
}

TEST_CASE("run relays what is typed into its terminal to the process, in raw mode while it runs",
          "[integration][terminal]") {
    Sandbox sb;
    TestTerminal terminal;
    termios before = terminal.mode();
    Bundle b = shell_bundle(sb, "echo ready; read x; echo got:$x");
    Process husk = run_in(sb, terminal, b, sb.id("tty"));
    REQUIRE(terminal.wait_for("ready"));
    termios relaying = terminal.mode();
    CHECK((relaying.c_lflag & (ICANON | ECHO | ISIG)) == 0);  // the container's pty does the line discipline
    terminal.type("abc\r");  // Enter sends CR; the container's terminal maps it (ICRNL)
    CHECK(terminal.wait_for("got:abc"));
    Output ran = finish(terminal, husk);
    CHECK(ran.exit_code == 0);
    CHECK(same_mode(terminal.mode(), before));
    check_nothing_left(sb);
}

TEST_CASE("run restores its terminal when the container is killed by a signal", "[integration][terminal]") {
    Sandbox sb;
    TestTerminal terminal;
    termios before = terminal.mode();
    Bundle b = shell_bundle(sb, "echo ready; exec sleep 1000");
    std::string id = sb.id("tty");
    Process husk = run_in(sb, terminal, b, id);
    REQUIRE(terminal.wait_for("ready"));
    CHECK_FALSE(same_mode(terminal.mode(), before));
    CHECK(sb.husk({"kill", id, "KILL"}).exit_code == 0);
    Output ran = finish(terminal, husk);
    CHECK(ran.exit_code == 137);
    CHECK(same_mode(terminal.mode(), before));
    check_nothing_left(sb);
}

TEST_CASE("run restores its terminal when a signal it does not forward ends it", "[integration][terminal]") {
    Sandbox sb;
    TestTerminal terminal;
    termios before = terminal.mode();
    Bundle b = shell_bundle(sb, "echo ready; exec sleep 1000");
    std::string id = sb.id("tty");
    Process husk = run_in(sb, terminal, b, id);
    REQUIRE(terminal.wait_for("ready"));
    CHECK_FALSE(same_mode(terminal.mode(), before));
    ::kill(husk.pid(), SIGALRM);  // default action: terminate; husk neither blocks nor forwards it
    Output ran = husk.wait();
    INFO(ran.describe());
    CHECK(ran.exit_code == 128 + SIGALRM);
    CHECK(same_mode(terminal.mode(), before));
    CHECK(sb.husk({"delete", "--force", id}).exit_code == 0);  // the container outlived its husk run
    terminal.rest();
    check_nothing_left(sb);
}

TEST_CASE("run keeps its terminal raw when a signal the caller ignored arrives", "[integration][terminal]") {
    Sandbox sb;
    TestTerminal terminal;
    termios before = terminal.mode();
    // The second read keeps the container (and so the relay) alive while the mode is checked: once it exits,
    // husk restores the terminal, and a check after "got:x" alone would race that.
    Bundle b = shell_bundle(sb, "echo ready; read x; echo got:$x; read y; exit 4");
    std::string id = sb.id("tty");
    SpawnOptions options;
    options.terminal = terminal.slave();
    // As nohup leaves SIGHUP: ignored across exec. SIGALRM is one husk neither blocks nor forwards.
    Process husk = sb.spawn_command({"/bin/sh", "-c", "trap '' ALRM; exec \"$0\" --root \"$1\" run --bundle \"$2\" \"$3\"",
                                     paths().husk, sb.root(), b.dir, id}, options);
    terminal.close_slave();
    REQUIRE(terminal.wait_for("ready"));
    termios raw = terminal.mode();
    CHECK_FALSE(same_mode(raw, before));
    ::kill(husk.pid(), SIGALRM);
    terminal.type("x\r");  // still relayed, still raw: the container's terminal turns CR into a newline
    CHECK(terminal.wait_for("got:x"));
    CHECK(same_mode(terminal.mode(), raw));
    terminal.type("y\r");
    Output ran = finish(terminal, husk);
    CHECK(ran.exit_code == 4);
    CHECK(same_mode(terminal.mode(), before));
    check_nothing_left(sb);
}

TEST_CASE("SIGWINCH to run resizes the container's terminal to the caller's size", "[integration][terminal]") {
    Sandbox sb;
    TestTerminal terminal;
    terminal.set_size(24, 80);
    Bundle b = shell_bundle(sb, "trap 'stty size; exit 3' WINCH; echo ready; while :; do sleep 0.05; done");
    Process husk = run_in(sb, terminal, b, sb.id("tty"));
    REQUIRE(terminal.wait_for("ready"));
    // The kernel sends SIGWINCH to husk's process group itself when the size changes; send it as well, as a
    // terminal emulator's shell would see it.
    terminal.set_size(40, 100);
    ::kill(husk.pid(), SIGWINCH);
    CHECK(terminal.wait_for("40 100"));
    Output ran = finish(terminal, husk);
    CHECK(ran.exit_code == 3);
    check_nothing_left(sb);
}

TEST_CASE("run relays a terminal when its stdin is a pipe or a file, and their end is the terminal's EOF",
          "[integration][terminal]") {
    Sandbox sb;
    Bundle b = shell_bundle(sb, "read x; echo got:$x; cat; echo end; exit 5");
    SECTION("a pipe") {
        std::string id = sb.id("tty");
        Output ran = sb.command({"/bin/sh", "-c", "printf 'one\\ntwo\\n' | \"$0\" --root \"$1\" run --bundle \"$2\" \"$3\"",
                                 paths().husk, sb.root(), b.dir, id});
        INFO(ran.describe());
        CHECK(ran.exit_code == 5);
        CHECK_THAT(ran.out, Contains("got:one\r\n"));
        CHECK_THAT(ran.out, Contains("two\r\nend\r\n"));
    }
    SECTION("a file") {
        SpawnOptions options;
        options.stdin_data = "one\ntwo";  // no newline at the end: the first EOF ends the line
        Output ran = sb.husk({"run", "--bundle", b.dir, sb.id("tty")}, options);
        INFO(ran.describe());
        CHECK(ran.exit_code == 5);
        CHECK_THAT(ran.out, Contains("got:one\r\n"));
        CHECK_THAT(ran.out, Contains("twoend\r\n"));
    }
    check_nothing_left(sb);
}

TEST_CASE("run --detach with a terminal but without --console-socket is refused and leaves nothing behind",
          "[integration][terminal]") {
    Sandbox sb;
    Bundle b = shell_bundle(sb, "exit 0");
    Output out = sb.husk({"run", "--detach", "--bundle", b.dir, sb.id("tty")});
    INFO(out.describe());
    CHECK(out.exit_code == 1);
    CHECK(lines(out.err).size() == 1);
    CHECK_THAT(out.err, Contains("--console-socket is required"));
    check_nothing_left(sb);
}

TEST_CASE("exec -t without a console socket relays its terminal too: size, typed input, status, mode restored",
          "[integration][terminal][exec]") {
    Sandbox sb;
    Bundle b = sb.bundle();
    std::string id = start_sleeper(sb, b, "exec-tty");
    TestTerminal terminal;
    terminal.set_size(27, 101);
    termios before = terminal.mode();
    SpawnOptions options;
    options.terminal = terminal.slave();
    Process husk = sb.spawn_husk({"exec", "-t", id, "/bin/sh", "-c", "tty; stty size; echo ready; read x; echo got:$x; exit 4"},
                                 options);
    terminal.close_slave();
    REQUIRE(terminal.wait_for("ready"));
    terminal.type("xyz\r");
    CHECK(terminal.wait_for("got:xyz"));
    Output ran = finish(terminal, husk);
    const std::string& output = terminal.seen();
    CHECK(ran.exit_code == 4);
    CHECK_THAT(output, Contains("/dev/pts/"));
    CHECK_THAT(output, Contains("27 101"));
    CHECK(same_mode(terminal.mode(), before));
    stop_and_delete(sb, id);
    check_nothing_left(sb);
}
