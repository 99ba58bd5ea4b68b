// Bad input: every case fails with a non-zero exit, one clear line on stderr naming the problem, and
// leaves nothing behind (no state dir, cgroup, mount or process).
#include <catch2/catch.hpp>

#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
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

// husk under a 1 GiB address-space limit: a reader that does not stop (--config /dev/zero before the
// bound) fails inside its own limit instead of taking the shared machine's memory with it.
Output husk_with_memory_cap(Sandbox& sb, const std::vector<std::string>& args, SpawnOptions options = {}) {
    std::vector<std::string> argv = {"/bin/sh", "-c", "ulimit -v 1048576 && exec \"$0\" \"$@\"", paths().husk,
                                     "--root", sb.root()};
    argv.insert(argv.end(), args.begin(), args.end());
    return sb.command(argv, std::move(options));
}

struct Edit {
    const char* what;
    std::function<void(Json&)> apply;
    std::vector<std::string> words;
};

// create on the test bundle with one edit applied must be refused naming `words`, leaving nothing.
void check_edit_refused(const Edit& edit) {
    INFO(edit.what);
    Sandbox sb;
    Bundle b = sb.bundle();
    edit.apply(b.config);
    check_refused(sb, sb.create(b, sb.id("c")), edit.words);
}

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
    check_edit_refused(edits[GENERATE(range(size_t(0), edits.size()))]);
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
    check_edit_refused(edits[GENERATE(range(size_t(0), edits.size()))]);
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
    check_edit_refused(edits[GENERATE(range(size_t(0), edits.size()))]);
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

// --- Unbounded input: every JSON husk reads is bounded in size and depth, and only regular
// files are read.

TEST_CASE("create refuses a config.json nested a million levels deep instead of crashing", "[integration][bad-input]") {
    // yajl_tree_free recursed once per level: husk died of SIGSEGV with nothing on stderr.
    Sandbox sb;
    Bundle b = sb.bundle();
    write_file(b.config_path(), std::string(1'000'000, '[') + std::string(1'000'000, ']'));
    Output out = sb.husk({"create", "--bundle", b.dir, sb.id("c")});
    check_refused(sb, out, {"config.json", "invalid JSON: nested deeper than 256 levels"});
}

TEST_CASE("create refuses a config.json larger than 4 MiB", "[integration][bad-input]") {
    Sandbox sb;
    Bundle b = sb.bundle();
    b.config["annotations"] = Json::object({{"filler", std::string(5 << 20, 'x')}});
    check_refused(sb, sb.create(b, sb.id("c")), {"config.json", "larger than husk reads (4 MiB)"});
}

// [no-sanitizer]: ASan cannot reserve its shadow memory under `ulimit -v` (docs/testing.md).
TEST_CASE("create refuses a --config that is not a regular file, at once", "[integration][bad-input][no-sanitizer]") {
    // /dev/zero never ends (husk read it until memory ran out); a FIFO without a writer blocked the open forever.
    Sandbox sb;
    Bundle b = sb.bundle();
    b.write();
    std::string fifo = b.dir + "/fifo.json";
    REQUIRE(mkfifo(fifo.c_str(), 0600) == 0);
    const std::vector<std::pair<std::string, std::string>> cases = {
        {"/dev/zero", "is a character device, not a regular file"},
        {fifo, "is a FIFO, not a regular file"},
        {b.dir, "is a directory, not a regular file"},
    };
    for (const auto& [config, words] : cases) {
        INFO("--config " << config);
        SpawnOptions options;
        options.timeout = Ms(10000);
        Output out = husk_with_memory_cap(sb, {"create", "--bundle", b.dir, "--config", config, sb.id("c")}, options);
        check_refused(sb, out, {config, words});
    }
}

// [no-sanitizer]: as above, `ulimit -v`.
TEST_CASE("update refuses --resources that are not a regular file or too large, before touching anything",
          "[integration][bad-input][no-sanitizer]") {
    // The resources are read before the container is looked up, so no container is needed to see the bound.
    Sandbox sb;
    SpawnOptions options;
    options.timeout = Ms(10000);
    Output zero = husk_with_memory_cap(sb, {"update", "--resources", "/dev/zero", sb.id("c")}, options);
    check_refused(sb, zero, {"--resources /dev/zero", "is a character device, not a regular file"});

    // Standard input may be a pipe (containerd's shim pipes the JSON in), but it is bounded too.
    options.stdin_data = std::string((4 << 20) + 1, ' ');
    Output big = husk_with_memory_cap(sb, {"update", "--resources", "-", sb.id("c")}, options);
    check_refused(sb, big, {"--resources -", "larger than husk reads (4 MiB)"});
}

TEST_CASE("state survives a state.json nested a million levels deep", "[integration][bad-input]") {
    // yajl_tree_free's recursion crashed `state` (SIGSEGV); now the record is refused as corrupt, and state
    // reports what it can without it, as for any unreadable record.
    Sandbox sb;
    std::string id = sb.id("c");
    std::filesystem::create_directories(sb.root() + "/" + id);
    write_file(sb.root() + "/" + id + "/lock", "");
    write_file(sb.root() + "/" + id + "/state.json", std::string(1'000'000, '[') + std::string(1'000'000, ']'));
    Output out = sb.husk({"state", id});
    INFO(out.describe());
    CHECK(out.exit_code == 0);
    CHECK(Json::parse(out.out)["status"].str() == "stopped");
    std::filesystem::remove_all(sb.root() + "/" + id);
}

// --- NUL (item 6): an escaped NUL would cut a string short in every C API husk passes it to.

TEST_CASE("create refuses a string with an escaped NUL, naming its JSON path", "[integration][bad-input]") {
    static const std::vector<Edit> edits = {
        {"args", [](Json& c) { c["process"]["args"] = Json::strings({std::string("/probe\0-not-probe", 17)}); },
         {"process.args[0]", "NUL"}},
        {"env", [](Json& c) { c["process"]["env"].push_back(std::string("A=1\0B=2", 7)); }, {"process.env[", "NUL"}},
        {"hostname", [](Json& c) { c["hostname"] = std::string("host\0name", 9); }, {"hostname", "NUL"}},
        {"mount destination",
         [](Json& c) { c["mounts"].at(1)["destination"] = std::string("/dev\0/x", 7); }, {"mounts[1].destination", "NUL"}},
    };
    check_edit_refused(edits[GENERATE(range(size_t(0), edits.size()))]);
}

TEST_CASE("create refuses a config.json with a raw NUL byte instead of reading up to it", "[integration][bad-input]") {
    Sandbox sb;
    Bundle b = sb.bundle();
    write_file(b.config_path(), b.config.dump() + std::string("\0 trailing", 10));
    Output out = sb.husk({"create", "--bundle", b.dir, sb.id("c")});
    check_refused(sb, out, {"config.json", "invalid JSON: NUL byte at offset"});
}

// --- What runc refuses (item 7).

TEST_CASE("create refuses a negative --preserve-fds", "[integration][bad-input]") {
    Sandbox sb;
    Bundle b = sb.bundle();
    Output out = sb.create(b, sb.id("c"), {"--preserve-fds", "-1"});
    check_refused(sb, out, {"--preserve-fds", "-1"});
    CHECK(out.exit_code == 2);
}

TEST_CASE("every verb that takes an id refuses a path-like one and touches nothing outside --root",
          "[integration][bad-input]") {
    // The id becomes <root>/<id>: each verb must check it before that path is opened. The decoy beside --root
    // looks like a state dir (it has a lock file); `delete --force ../decoy` once removed it and exited 0.
    static const std::vector<std::vector<std::string>> verbs = {
        {"state"}, {"start"}, {"kill"}, {"kill", "--all"}, {"delete"}, {"delete", "--force"}, {"pause"},
        {"resume"}, {"ps"}, {"events", "--stats"}, {"events"}, {"update", "--cpu-share", "512"},
        {"create", "--bundle"}, {"run", "--bundle"}};
    const std::vector<std::string>& verb = verbs[GENERATE(range(size_t(0), verbs.size()))];
    std::string id = GENERATE(as<std::string>{}, "../decoy", "..", ".", "decoy/../../decoy", "a/b");
    INFO(verb[0] << " " << id);
    Sandbox sb;
    std::string decoy = sb.dir() + "/decoy";
    REQUIRE(mkdir(decoy.c_str(), 0700) == 0);
    write_file(decoy + "/lock", "");
    std::vector<std::string> args = verb;
    if (args.back() == "--bundle") {
        Bundle b = sb.bundle();
        b.write();
        args.push_back(b.dir);
    }
    args.push_back(id);
    Output out = sb.husk(args);
    check_refused(sb, out, {"invalid container id"});
    CHECK(out.exit_code == (verb[0] == "run" ? 2 : 1));  // a refused run exits 2 (husk(8), EXIT STATUS)
    CHECK(std::filesystem::exists(decoy + "/lock"));
}

TEST_CASE("create refuses an id that starts with '-'", "[integration][bad-input]") {
    Sandbox sb;
    Bundle b = sb.bundle();
    b.write();
    std::string id = "-" + sb.id("dash");
    Output out = sb.husk({"create", "--bundle", b.dir, "--", id});
    check_refused(sb, out, {"invalid container id", "must not start with '-'"});
}

TEST_CASE("create warns about an unknown hook kind on stderr and in --log, and still creates",
          "[integration][bad-input]") {
    // config.md: unknown properties are ignored (runc does); a misspelt kind must not vanish without a trace.
    Sandbox sb;
    Bundle b = sb.bundle();
    b.config["hooks"] = Json::object({{"prestrat", Json::array({Json::object({{"path", "/bin/true"}})})}});
    std::string id = sb.id("c"), log = sb.dir() + "/log.json";
    Output out = sb.create(b, id, {}, {});
    INFO(out.describe());
    REQUIRE(out.exit_code == 0);
    REQUIRE(lines(out.err).size() == 1);
    CHECK_THAT(out.err, Contains("warning") && Contains("hooks.prestrat: unknown hook kind, ignored"));
    CHECK(sb.husk({"delete", "--force", id}).exit_code == 0);

    Output logged = sb.husk({"--log", log, "--log-format", "json", "create", "--bundle", b.dir, id});
    INFO(logged.describe());
    REQUIRE(logged.exit_code == 0);
    Json last = Json::parse(lines(read_file(log)).back());
    CHECK(last["level"].str() == "warning");
    CHECK_THAT(last["msg"].str(), Contains("hooks.prestrat: unknown hook kind"));
}

// --- A mount point that resolves somewhere unexpected (item 8).

TEST_CASE("create names a /dev that is a symlink to the rootfs's root", "[integration][bad-input]") {
    // The /dev tmpfs went over the whole rootfs, and the error was `exec: "...": executable file not found`.
    Sandbox sb;
    Bundle b = sb.bundle();
    std::filesystem::remove_all(b.rootfs() + "/dev");
    REQUIRE(symlink("/", (b.rootfs() + "/dev").c_str()) == 0);
    check_refused(sb, sb.create(b, sb.id("c")),
                  {"mount point \"/dev\"", "resolves to the container's root", "not a directory inside the rootfs"});
}
