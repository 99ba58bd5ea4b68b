// The files husk writes for its caller (--log, --verdict, --pid-file), by paths the caller gives, while husk is
// root: a path another user could steer (a symlink or FIFO planted at the name, a directory they can write on
// the way) is refused before anything runs, and nothing is written through it (docs/husk.8.md, FILES HUSK WRITES
// FOR ITS CALLER; base/caller_file.hpp).
#include <catch2/catch.hpp>

#include <sys/stat.h>
#include <unistd.h>

#include <string>

#include "harness.hpp"
#include "monitor_support.hpp"

using namespace husk::test;
using Catch::Matchers::Contains;

namespace {

constexpr uid_t other = 4242;  // no account: another user of the host

// A directory of the sandbox's, `mode` and owned by `owner`, as another user might own one.
std::string directory(const Sandbox& sb, const std::string& name, mode_t mode, uid_t owner) {
    std::string path = sb.dir() + "/" + name;
    REQUIRE(::mkdir(path.c_str(), mode) == 0);
    REQUIRE(::chmod(path.c_str(), mode) == 0);
    REQUIRE(::chown(path.c_str(), owner, 0) == 0);
    return path;
}

// The sandbox's directory is root's 0700: open it to the planted directories' "owner", as /tmp would be.
void let_others_in(const Sandbox& sb) { REQUIRE(::chmod(sb.dir().c_str(), 0755) == 0); }

}  // namespace

TEST_CASE("--log through a symlink another user planted is refused, and the file it names is untouched",
          "[integration][caller-paths]") {
    Sandbox sb;
    let_others_in(sb);
    const std::string secret = sb.dir() + "/secret";
    write_file(secret, "root's\n", 0600);
    const std::string log = directory(sb, "logs", 01777, 0) + "/husk.log";
    REQUIRE(::symlink(secret.c_str(), log.c_str()) == 0);
    REQUIRE(::lchown(log.c_str(), other, 0) == 0);
    Output out = sb.husk({"--log", log, "state", "nonexistent"});
    INFO(out.describe());
    CHECK(out.exit_code == 2);
    CHECK_THAT(out.err, Contains("--log " + log) && Contains("is a symbolic link, which husk does not follow"));
    CHECK(read_file(secret) == "root's\n");
    check_nothing_left(sb);
}

TEST_CASE("--log at a FIFO is refused at once instead of hanging husk", "[integration][caller-paths]") {
    Sandbox sb;
    const std::string fifo = sb.dir() + "/log.fifo";
    REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
    SpawnOptions quick;
    quick.timeout = Ms(10000);
    Output out = sb.husk({"--log", fifo, "state", "nonexistent"}, quick);
    INFO(out.describe());
    CHECK_FALSE(out.timed_out);
    CHECK(out.exit_code == 2);
    CHECK_THAT(out.err, Contains("is not a regular file"));
}

TEST_CASE("--log lines cannot be forged: control characters in a message are escaped, one message one line",
          "[integration][caller-paths]") {
    Sandbox sb;
    const std::string log = sb.dir() + "/husk.log";
    for (const char* format : {"text", "json"}) {
        INFO(format);
        Output out = sb.husk({"--log", log, "--log-format", format, "kill", "x\nlevel=error msg=\"forged\""});
        CHECK(out.exit_code == 1);
    }
    // A warning carries text of the config's (here a hook kind's name): escaped the same way.
    Bundle b = with_args(sb, {"/probe", "exit", "0"});
    b.config["hooks"] = Json::object({{"x\nlevel=error msg=\"forged\"", Json::array()}});
    Output warned = sb.run(b, sb.id("warned"), {});
    INFO(warned.describe());
    CHECK_THAT(warned.err, Contains("unknown hook kind"));
    Output warned_log = sb.husk({"--log", log, "run", "--bundle", b.dir, sb.id("warned-log")});
    CHECK(warned_log.exit_code == 0);
    std::vector<std::string> written = lines(read_file(log));
    INFO(read_file(log));
    REQUIRE(written.size() == 3);
    CHECK_THAT(written[2], Contains("level=warning") && Contains("x\\\\x0alevel=error"));
    // The newline escaped as \x0a, and that backslash escaped again by each format's own quoting.
    CHECK_THAT(written[0], Contains("msg=\"kill x\\\\x0alevel=error"));
    CHECK_THAT(written[1], Contains("\"msg\":\"kill x\\\\x0alevel=error"));
}

TEST_CASE("--verdict below a directory another user owns is refused before anything runs",
          "[integration][caller-paths]") {
    Sandbox sb;
    let_others_in(sb);
    const std::string theirs = directory(sb, "theirs", 0755, other);
    const std::string inner = theirs + "/inner";  // root's, but its owner could swap it for anything
    REQUIRE(::mkdir(inner.c_str(), 0755) == 0);
    Bundle b = with_args(sb, {"/probe", "exit", "0"});
    const std::string id = sb.id("steered");
    Output out = sb.run(b, id, {"--verdict", inner + "/verdict.json"});
    INFO(out.describe());
    CHECK(out.exit_code == 2);
    CHECK_THAT(out.err, Contains(theirs + " is owned by uid 4242"));
    CHECK(sb.husk({"state", id}).exit_code == 1);  // nothing was created
    CHECK(::access((inner + "/verdict.json").c_str(), F_OK) != 0);
    check_nothing_left(sb);
}

// podman with --uidmap hands the runtime --log and --pid-file in the container's userdata directory, which it
// gives to the container's root (here uid 100000): the file's own directory may be another user's, and
// nothing that user plants there is followed.
TEST_CASE("--log, --pid-file and --verdict in a directory of another user's alone are written, and nothing "
          "planted there is followed", "[integration][caller-paths]") {
    Sandbox sb;
    let_others_in(sb);
    const std::string userdata = directory(sb, "userdata", 0700, 100000);
    Bundle b = with_args(sb, {"/probe", "exit", "0"});
    const std::string id = sb.id("userdata");
    Output created = sb.create(b, id, {"--pid-file", userdata + "/pidfile"});
    INFO(created.describe());
    REQUIRE(created.exit_code == 0);
    CHECK(std::stoi(read_file(userdata + "/pidfile")) > 1);
    CHECK(sb.husk({"delete", "--force", id}).exit_code == 0);
    CHECK(sb.husk({"--log", userdata + "/oci-log", "state", "nonexistent"}).exit_code == 1);
    CHECK_THAT(read_file(userdata + "/oci-log"), Contains("nonexistent"));
    Output run = sb.run(b, sb.id("verdict"), {"--verdict", userdata + "/verdict.json"});
    INFO(run.describe());
    CHECK(run.exit_code == 0);
    CHECK_THAT(read_file(userdata + "/verdict.json"), Contains("\"reason\":\"exited\""));

    const std::string secret = sb.dir() + "/secret";
    write_file(secret, "root's\n", 0600);
    const std::string log = userdata + "/husk.log";
    std::string why;
    SECTION("a symlink at the name") {
        REQUIRE(::symlink(secret.c_str(), log.c_str()) == 0);
        why = "is a symbolic link, which husk does not follow";
    }
    SECTION("a hard link at the name") {
        REQUIRE(::link(secret.c_str(), log.c_str()) == 0);
        why = "has 2 names in a directory of another user's";
    }
    Output out = sb.husk({"--log", log, "state", "nonexistent"});
    INFO(out.describe());
    CHECK(out.exit_code == 2);
    CHECK_THAT(out.err, Contains(why));
    const std::string below = userdata + "/below";  // a directory on the way below it
    REQUIRE(::mkdir(below.c_str(), 0755) == 0);
    Output deeper = sb.husk({"--log", below + "/husk.log", "state", "nonexistent"});
    INFO(deeper.describe());
    CHECK(deeper.exit_code == 2);
    CHECK_THAT(deeper.err, Contains(userdata + " is owned by uid 100000"));
    CHECK(read_file(secret) == "root's\n");
    check_nothing_left(sb);
}

TEST_CASE("--verdict where a directory was planted is refused before anything runs, never a silent missing verdict",
          "[integration][caller-paths]") {
    Sandbox sb;
    const std::string verdict = sb.dir() + "/verdict.json";
    REQUIRE(::mkdir(verdict.c_str(), 0755) == 0);
    Output out = sb.husk({"sandbox", "--verdict", verdict, "--", "/bin/true"});
    INFO(out.describe());
    CHECK(out.exit_code == 2);
    CHECK_THAT(out.err, Contains("--verdict " + verdict) && Contains("is not a regular file"));
    check_nothing_left(sb);
}

TEST_CASE("--pid-file in a directory others can write is refused before the container exists",
          "[integration][caller-paths]") {
    Sandbox sb;
    let_others_in(sb);
    const std::string theirs = directory(sb, "theirs", 0757, other);
    Bundle b = with_args(sb, {"/probe", "sleep", "60"});
    const std::string id = sb.id("pidfile");
    Output out = sb.create(b, id, {"--pid-file", theirs + "/init.pid"});
    INFO(out.describe());
    CHECK(out.exit_code == 1);
    CHECK_THAT(out.err, Contains("--pid-file " + theirs + "/init.pid") && Contains("is writable by every user"));
    CHECK(sb.husk({"state", id}).exit_code == 1);
    check_nothing_left(sb);
}
