// Bad input: every case fails with a non-zero exit, one clear line on stderr naming the problem, and
// leaves nothing behind (no state dir, cgroup, mount or process).
#include <catch2/catch.hpp>

#include <sys/resource.h>
#include <sys/stat.h>

#include <functional>

#include "harness.hpp"

using namespace husk::test;
using Catch::Matchers::Contains;

namespace {

// Each word must appear in stderr (case-insensitive); error texts follow the field path style of
// `linux.namespaces[2].type: unknown namespace "foo"`.
void check_refused(const Sandbox& sb, const Output& out, const std::vector<std::string>& words) {
    INFO(out.describe());
    CHECK_FALSE(out.timed_out);
    CHECK(out.exit_code != 0);
    CHECK(lines(out.err).size() == 1);
    for (const std::string& word : words) CHECK_THAT(to_lower(out.err), Contains(to_lower(word)));
    check_nothing_left(sb);
}

struct Edit {
    const char* what;
    std::function<void(Json&)> apply;
    std::vector<std::string> words;
};

}  // namespace

TEST_CASE("create refuses a bundle directory that does not exist", "[integration][bad-input]") {
    Sandbox sb;
    std::string missing = sb.dir() + "/no-such-bundle";
    Output out = sb.husk({"create", "--bundle", missing, sb.id("c")});
    check_refused(sb, out, {"no such file or directory", missing});
}

TEST_CASE("create refuses a bundle without config.json", "[integration][bad-input]") {
    Sandbox sb;
    Bundle b = sb.bundle();  // rootfs only: config.json is never written
    Output out = sb.husk({"create", "--bundle", b.dir, sb.id("c")});
    check_refused(sb, out, {"config.json", "no such file or directory"});
}

TEST_CASE("create refuses a config.json that cannot be read as a file", "[integration][bad-input]") {
    Sandbox sb;
    Bundle b = sb.bundle();
    mkdir(b.config_path().c_str(), 0755);
    Output out = sb.husk({"create", "--bundle", b.dir, sb.id("c")});
    check_refused(sb, out, {"config.json"});
}

TEST_CASE("create refuses invalid JSON", "[integration][bad-input]") {
    std::string text = GENERATE(as<std::string>{}, "{\"ociVersion\": ", "", "[1, 2]", "{\"ociVersion\": \"1.3.0\"} trailing");
    Sandbox sb;
    Bundle b = sb.bundle();
    write_file(b.config_path(), text);
    Output out = sb.husk({"create", "--bundle", b.dir, sb.id("c")});
    check_refused(sb, out, {"config.json"});
}

TEST_CASE("create refuses fields of the wrong type, naming the field", "[integration][bad-input]") {
    static const std::vector<Edit> edits = {
        {"args is a string", [](Json& c) { c["process"]["args"] = "sh"; }, {"process.args"}},
        {"uid is a string", [](Json& c) { c["process"]["user"]["uid"] = "0"; }, {"process.user.uid"}},
        {"namespaces is an object", [](Json& c) { c["linux"]["namespaces"] = Json::object(); }, {"linux.namespaces"}},
        {"hostname is a number", [](Json& c) { c["hostname"] = 5; }, {"hostname"}},
        {"readonly is a string", [](Json& c) { c["root"]["readonly"] = "yes"; }, {"root.readonly"}},
    };
    const Edit& edit = edits[GENERATE(range(size_t(0), edits.size()))];
    INFO(edit.what);
    Sandbox sb;
    Bundle b = sb.bundle();
    edit.apply(b.config);
    check_refused(sb, sb.create(b, sb.id("c")), edit.words);
}

TEST_CASE("create refuses a config without a required field, naming it", "[integration][bad-input]") {
    static const std::vector<Edit> edits = {
        {"no ociVersion", [](Json& c) { c.erase("ociVersion"); }, {"ociVersion"}},
        {"no root", [](Json& c) { c.erase("root"); }, {"root"}},
        {"no process.cwd", [](Json& c) { c["process"].erase("cwd"); }, {"process.cwd"}},
        {"no mount destination", [](Json& c) { c["mounts"].at(0).erase("destination"); }, {"mounts[0].destination"}},
        {"no namespace type", [](Json& c) { c["linux"]["namespaces"].at(0).erase("type"); },
         {"linux.namespaces[0].type"}},
    };
    const Edit& edit = edits[GENERATE(range(size_t(0), edits.size()))];
    INFO(edit.what);
    Sandbox sb;
    Bundle b = sb.bundle();
    edit.apply(b.config);
    check_refused(sb, sb.create(b, sb.id("c")), edit.words);
}

TEST_CASE("create refuses a relative root.path that does not exist", "[integration][bad-input]") {
    Sandbox sb;
    Bundle b = sb.bundle();
    b.config["root"]["path"] = "missing-rootfs";
    check_refused(sb, sb.create(b, sb.id("c")), {"missing-rootfs", "no such file or directory"});
}

TEST_CASE("create refuses invalid container ids", "[integration][bad-input]") {
    std::string id = GENERATE(as<std::string>{}, "", "/", ".", "..", "a/b", "../escape", std::string("a\x01" "b"),
                              std::string("new\nline"));
    INFO("id: \"" << id << "\"");
    Sandbox sb;
    Bundle b = sb.bundle();
    check_refused(sb, sb.create(b, id), {"container id"});
}

TEST_CASE("create refuses an id that is already taken and leaves the first container intact",
          "[integration][bad-input]") {
    Sandbox sb;
    Bundle b = sb.bundle();
    b.config["process"]["args"] = Json::strings({"/probe", "sleep", "60"});
    std::string id = sb.id("dup");
    Output first = sb.create(b, id);
    INFO(first.describe());
    REQUIRE(first.exit_code == 0);
    long long pid = sb.state(id)["pid"].num();

    Output second = sb.create(b, id);
    INFO(second.describe());
    CHECK(second.exit_code != 0);
    CHECK(lines(second.err).size() == 1);
    CHECK_THAT(to_lower(second.err), Contains("exists"));
    Json st = sb.state(id);
    CHECK(st["status"].str() == "created");
    CHECK(st["pid"].num() == pid);
    CHECK(process_alive(static_cast<pid_t>(pid)));
}

TEST_CASE("create refuses unknown namespaces, capabilities and rlimits, naming them", "[integration][bad-input]") {
    static const std::vector<Edit> edits = {
        {"namespace foo", [](Json& c) { c["linux"]["namespaces"].push_back(Json::object({{"type", "foo"}})); },
         {"linux.namespaces[5].type", "unknown namespace", "foo"}},
        {"capability CAP_FOO", [](Json& c) { c["process"]["capabilities"]["bounding"].push_back("CAP_FOO"); },
         {"unknown capability", "CAP_FOO"}},
        {"rlimit RLIMIT_FOO",
         [](Json& c) {
             c["process"]["rlimits"].push_back(Json::object({{"type", "RLIMIT_FOO"}, {"soft", 1}, {"hard", 1}}));
         },
         {"unknown rlimit", "RLIMIT_FOO"}},
    };
    const Edit& edit = edits[GENERATE(range(size_t(0), edits.size()))];
    INFO(edit.what);
    Sandbox sb;
    Bundle b = sb.bundle();
    edit.apply(b.config);
    check_refused(sb, sb.create(b, sb.id("c")), edit.words);
}

TEST_CASE("create refuses a hard rlimit above husk's own, naming it", "[integration][bad-input]") {
    rlimit own{};
    getrlimit(RLIMIT_NOFILE, &own);
    if (own.rlim_max == RLIM_INFINITY) {
        WARN("RLIMIT_NOFILE is unlimited here: nothing to exceed");
        return;
    }
    Sandbox sb;
    Bundle b = sb.bundle();
    b.config["process"]["rlimits"] = Json::array(
        {Json::object({{"type", "RLIMIT_NOFILE"}, {"soft", 1024}, {"hard", static_cast<unsigned long long>(own.rlim_max) + 1}})});
    check_refused(sb, sb.create(b, sb.id("c")), {"RLIMIT_NOFILE"});
}

TEST_CASE("create refuses a relative mount destination", "[integration][bad-input]") {
    Sandbox sb;
    Bundle b = sb.bundle();
    b.config["mounts"].push_back(Json::object({{"destination", "relative/dir"}, {"type", "tmpfs"}, {"source", "tmpfs"}}));
    check_refused(sb, sb.create(b, sb.id("c")), {"mounts[7].destination", "relative/dir"});
}

TEST_CASE("kill refuses an unknown signal and leaves the container running", "[integration][bad-input]") {
    std::string signal = GENERATE(as<std::string>{}, "SIGFOO", "NOTASIGNAL");
    Sandbox sb;
    Bundle b = sb.bundle();
    b.config["process"]["args"] = Json::strings({"/probe", "sleep", "60"});
    std::string id = sb.id("sig");
    REQUIRE(sb.create(b, id).exit_code == 0);
    REQUIRE(sb.husk({"start", id}).exit_code == 0);
    Output out = sb.husk({"kill", id, signal});
    INFO(out.describe());
    CHECK(out.exit_code != 0);
    CHECK(lines(out.err).size() == 1);
    CHECK_THAT(to_lower(out.err), Contains("unknown signal") && Contains(to_lower(signal)));
    CHECK(sb.state(id)["status"].str() == "running");
}

TEST_CASE("a missing executable fails at create or start and the container ends stopped",
          "[integration][bad-input]") {
    std::string program = GENERATE(as<std::string>{}, "/nonexistent", "nonexistent-command");
    Sandbox sb;
    Bundle b = sb.bundle();
    b.config["process"]["args"] = Json::strings({program});
    std::string id = sb.id("noexec");
    // Either wording works for podman, which maps both to exit status 127.
    auto names_the_problem = [](const std::string& err) {
        std::string text = to_lower(err);
        return text.find("nonexistent") != std::string::npos &&
               (text.find("no such file or directory") != std::string::npos ||
                text.find("executable file not found") != std::string::npos);
    };
    Output created = sb.create(b, id);
    if (created.exit_code != 0) {
        INFO("reported at create");
        CHECK(names_the_problem(created.err));
        check_refused(sb, created, {});
        return;
    }
    Output started = sb.husk({"start", id});
    INFO(started.describe());
    CHECK(started.exit_code != 0);
    CHECK(names_the_problem(started.err));
    CHECK(sb.wait_for_status(id, "stopped")["status"].str() == "stopped");
    CHECK(sb.husk({"delete", id}).exit_code == 0);
    check_nothing_left(sb);
}

TEST_CASE("with --log and --log-format json the error is also the last JSON line of the log",
          "[integration][bad-input]") {
    // containerd's shim reports the `msg` of the last error line of --log; both option spellings occur.
    Sandbox sb;
    std::string log = sb.dir() + "/log.json", missing = sb.dir() + "/no-such-bundle";
    Output out = sb.husk({"--log=" + log, "--log-format", "json", "create", "--bundle", missing, sb.id("c")});
    check_refused(sb, out, {"no such file or directory"});
    std::vector<std::string> logged = lines(read_file(log));
    REQUIRE_FALSE(logged.empty());
    Json last = Json::parse(logged.back());
    CHECK(last["level"].str() == "error");
    CHECK_THAT(last["msg"].str(), Contains("no such file or directory") && Contains(missing));
    CHECK_FALSE(last["time"].str().empty());
}

TEST_CASE("the systemd cgroup manager is refused with a clear error", "[integration][bad-input]") {
    std::string flag = GENERATE(as<std::string>{}, "--systemd-cgroup", "--cgroup-manager=systemd");
    Sandbox sb;
    Bundle b = sb.bundle();
    b.write();
    Output out = sb.husk({flag, "create", "--bundle", b.dir, sb.id("c")});
    check_refused(sb, out, {"systemd"});
}
