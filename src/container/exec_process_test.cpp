#include <catch2/catch.hpp>

#include "container/exec_process.hpp"

using husk::ExecOptions;
using husk::container::exec_process;

namespace {

husk::spec::Process configured() {
    husk::spec::Process p;
    p.args = {"/init"};
    p.env = {"PATH=/bin", "TERM=xterm"};
    p.cwd = "/";
    p.terminal = true;
    p.user.uid = 0;
    p.user.gid = 0;
    p.capabilities.bounding = std::vector<std::string>{"CAP_KILL"};
    p.capabilities.effective = std::vector<std::string>{"CAP_KILL"};
    p.capabilities.permitted = std::vector<std::string>{"CAP_KILL"};
    return p;
}

template <typename T>
std::string message(const husk::Result<T>& r) { return r ? "" : r.error().message(); }

}  // namespace

TEST_CASE("exec builds its process from the configured one with runc's flags applied", "[container][exec]") {
    ExecOptions options;
    options.args = {"sh", "-c", "true"};
    options.cwd = "/tmp";
    options.env = {"TERM=dumb", "FOO=bar"};
    options.user = "1000:1001";
    options.additional_gids = std::vector<std::uint32_t>{5};
    options.caps = {"CAP_SYS_ADMIN"};
    options.no_new_privs = true;
    auto p = exec_process(configured(), options);
    REQUIRE(p);
    CHECK(p->args == std::vector<std::string>{"sh", "-c", "true"});
    CHECK(p->cwd == "/tmp");
    CHECK(p->env == std::vector<std::string>{"PATH=/bin", "TERM=dumb", "FOO=bar"});
    CHECK(p->user.uid == 1000);
    CHECK(p->user.gid == 1001);
    CHECK(p->user.additional_gids == std::vector<std::uint32_t>{5});
    CHECK(*p->capabilities.bounding == std::vector<std::string>{"CAP_KILL", "CAP_SYS_ADMIN"});
    CHECK(*p->capabilities.effective == std::vector<std::string>{"CAP_KILL", "CAP_SYS_ADMIN"});
    CHECK_FALSE(p->capabilities.ambient);  // no inheritable set: an ambient capability could not be raised
    CHECK(p->no_new_privileges);
    CHECK_FALSE(p->terminal);  // init's terminal is not inherited; only -t gives one
}

TEST_CASE("exec --user takes a uid alone and keeps the configured gid", "[container][exec]") {
    ExecOptions options;
    options.args = {"id"};
    options.user = "7";
    husk::spec::Process base = configured();
    base.user.gid = 3;
    auto p = exec_process(base, options);
    REQUIRE(p);
    CHECK(p->user.uid == 7);
    CHECK(p->user.gid == 3);
}

TEST_CASE("exec refuses what runc refuses", "[container][exec]") {
    ExecOptions options;
    CHECK(message(exec_process(configured(), options)) == "exec args cannot be empty");
    options.args = {"true"};
    options.user = "root";
    CHECK_THAT(message(exec_process(configured(), options)), Catch::Matchers::Contains("not a number"));
    options.user = "1:x";
    CHECK_THAT(message(exec_process(configured(), options)), Catch::Matchers::Contains("gid"));
    options.user.clear();
    options.cwd = "relative";
    CHECK(message(exec_process(configured(), options)) == "cwd must be an absolute path");
    options.cwd.clear();
    options.process_label = "label";
    CHECK_THAT(message(exec_process(configured(), options)), Catch::Matchers::Contains("--process-label"));
}

TEST_CASE("exec --process replaces the configured process; --tty can only add a terminal", "[container][exec]") {
    ExecOptions options;
    husk::spec::Process given;
    given.args = {"/bin/sh"};
    given.cwd = "/work";
    options.process = given;
    options.args = {"ignored"};
    options.tty = true;
    auto p = exec_process(configured(), options);
    REQUIRE(p);
    CHECK(p->args == std::vector<std::string>{"/bin/sh"});
    CHECK(p->env.empty());
    CHECK(p->terminal);
    options.process->cwd.clear();
    CHECK(message(exec_process(configured(), options)) == "cwd property must not be empty");
}

TEST_CASE("a terminal goes to the console socket, or is relayed in the foreground; one place decides",
          "[container][exec]") {
    using husk::container::terminal_route;
    using husk::container::TerminalRoute;
    CHECK(terminal_route(false, true, "") == TerminalRoute::none);
    CHECK(terminal_route(true, true, "/run/sock") == TerminalRoute::socket);
    CHECK(terminal_route(true, false, "/run/sock") == TerminalRoute::socket);
    CHECK(terminal_route(true, false, "") == TerminalRoute::relay);
    CHECK(message(terminal_route(true, true, "")) == "cannot allocate tty if husk will detach without setting console socket");
}

TEST_CASE("exec --apparmor names the process's AppArmor profile, also over --process's", "[container][exec]") {
    husk::spec::Process with_profile = configured();
    with_profile.apparmor_profile = "docker-default";
    ExecOptions options;
    options.args = {"true"};
    auto inherited = exec_process(with_profile, options);
    REQUIRE(inherited);
    CHECK(inherited->apparmor_profile == "docker-default");
    options.apparmor = "other";
    auto flag = exec_process(with_profile, options);
    REQUIRE(flag);
    CHECK(flag->apparmor_profile == "other");
    options.process = with_profile;
    auto given = exec_process(configured(), options);
    REQUIRE(given);
    CHECK(given->apparmor_profile == "other");
}
