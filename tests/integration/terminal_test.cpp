// Terminal: with process.terminal, husk sends the pty master over --console-socket (SCM_RIGHTS) and
// the container's stdio is the pty's other end. Without a socket: terminal_relay_test.cpp.
#include <catch2/catch.hpp>

#include <unistd.h>

#include "console_socket.hpp"
#include "harness.hpp"
#include "terminal_support.hpp"

using namespace husk::test;
using Catch::Matchers::StartsWith;

TEST_CASE("with a terminal the pty master arrives on the console socket and the process sees a tty",
          "[integration][terminal]") {
    Sandbox sb;
    Bundle b = sb.bundle();
    b.config["process"]["terminal"] = true;
    b.write();
    std::string id = sb.id("tty");
    ConsoleSocket console(sb.dir() + "/console.sock");
    Process creating = sb.spawn_husk({"create", "--bundle", b.dir, "--console-socket", console.path(), id});
    int master = console.receive_fd(Ms(10000));
    Output created = creating.wait();
    INFO(created.describe());
    REQUIRE(created.exit_code == 0);
    REQUIRE(master >= 0);
    CHECK(isatty(master));

    REQUIRE(sb.husk({"start", id}).exit_code == 0);
    check_report_on_terminal(master);
    CHECK(sb.wait_for_status(id, "stopped")["status"].str() == "stopped");
    CHECK(sb.husk({"delete", id}).exit_code == 0);
    check_nothing_left(sb);
}

TEST_CASE("create with a terminal but without --console-socket is refused", "[integration][terminal]") {
    Sandbox sb;
    Bundle b = sb.bundle();
    b.config["process"]["terminal"] = true;
    Output out = sb.create(b, sb.id("tty"));
    INFO(out.describe());
    CHECK(out.exit_code != 0);
    CHECK(lines(out.err).size() == 1);
    CHECK_THAT(to_lower(out.err), Catch::Matchers::Contains("console"));
    check_nothing_left(sb);
}
