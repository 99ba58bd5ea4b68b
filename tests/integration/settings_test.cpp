// A husk setting has two spellings, the flag (--timeout 1s) and the annotation (run.husk.timeout in config.json),
// and one meaning in every verb (docs/ARCHITECTURE.md, "The effective config"). One row per setting of run,
// create and sandbox: each spelling creates a container, and what `state`, `exec`, `update` and the run's verdict
// see must be the same, and what the setting promises. A flag that reached only some verbs (exec reading the
// bundle's config, where --net-allow was not) makes its row fail.
#include <catch2/catch.hpp>

#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <functional>
#include <map>
#include <thread>

#include "harness.hpp"
#include "monitor_support.hpp"

using namespace husk::test;
using Catch::Matchers::Contains;

namespace {

struct Row {
    const char* name;
    std::vector<std::string> flags;                    // the flag spelling
    std::map<std::string, std::string> annotations;    // the annotation spelling, as husk writes it back
    std::vector<std::string> program;                  // what the run executes, to make the setting act
    std::function<void(const Json& verdict)> expect;   // what the setting promises the run's verdict shows
    bool net_policy = false;                           // exec with CAP_NET_RAW must be refused
};

const std::string tenant_name = "spellings";

const std::vector<Row>& rows() {
    static const std::vector<Row> table = {
        {"timeout", {"--timeout", "1s"}, {{"run.husk.timeout", "1s"}}, {"/probe", "sleep", "60"},
         [](const Json& v) {
             CHECK(v["exit"]["reason"].str() == "timeout");
             CHECK(v["limits"]["timeoutMs"].num() == 1000);
         }},
        {"kill-grace", {"--timeout", "500ms", "--kill-grace", "0"},
         {{"run.husk.timeout", "500ms"}, {"run.husk.kill-grace", "0"}}, {"/probe", "ignore-term", "sleep", "60"},
         [](const Json& v) {
             CHECK(v["exit"]["reason"].str() == "timeout");
             CHECK(v["limits"]["killGraceMs"].num() == 0);
             CHECK(v["exit"]["signal"].num() == SIGKILL);
         }},
        {"stop-signal", {"--timeout", "500ms", "--stop-signal", "SIGINT"},
         {{"run.husk.timeout", "500ms"}, {"run.husk.stop-signal", "SIGINT"}}, {"/probe", "sleep", "60"},
         [](const Json& v) {
             CHECK(v["exit"]["reason"].str() == "timeout");
             CHECK(v["limits"]["stopSignal"].str() == "SIGINT");
         }},
        {"output-limit", {"--output-limit", "100"}, {{"run.husk.output-limit", "100"}}, {"/bin/yes"},
         [](const Json& v) {
             CHECK(v["exit"]["reason"].str() == "output-limit");
             CHECK(v["limits"]["outputLimitBytes"].num() == 100);
             CHECK(v["usage"]["stdoutBytes"].num() == 100);
         }},
        {"cpu-limit", {"--cpu-limit", "200ms"}, {{"run.husk.cpu-limit", "200ms"}},
         {"/bin/sh", "-c", "while :; do :; done"},
         [](const Json& v) {
             CHECK(v["exit"]["reason"].str() == "cpu-limit");
             CHECK(v["limits"]["cpuLimitUsec"].num() == 200000);
         }},
        {"tenant", {"--tenant", tenant_name}, {{"run.husk.tenant", tenant_name}}, {"/bin/true"},
         [](const Json& v) {
             CHECK(v["exit"]["reason"].str() == "exited");
             CHECK(v["limits"]["tenant"].str() == tenant_name);
         }},
        {"net-allow", {"--net-allow", "127.0.0.1/32:1", "--net-allow", "[::1/128]:2"},
         {{"run.husk.net-allow", "127.0.0.1/32:1,[::1/128]:2"}}, {"/bin/true"},
         [](const Json& v) {
             CHECK(v["exit"]["reason"].str() == "exited");
             CHECK(v["limits"]["netAllow"].dump() == R"(["127.0.0.1/32:1","[::1/128]:2"])");
         },
         true},
        {"net-ops", {"--net-ops", "5"}, {{"run.husk.net-ops", "5"}}, {"/bin/true"},
         [](const Json& v) {
             CHECK(v["exit"]["reason"].str() == "exited");
             CHECK(v["limits"]["netOps"].num() == 5);
         },
         true},
        {"net-ops-kill", {"--net-ops", "1", "--net-ops-kill"}, {{"run.husk.net-ops", "1"}, {"run.husk.net-ops-kill", "true"}},
         {"/bin/true"},
         [](const Json& v) {
             CHECK(v["exit"]["reason"].str() == "exited");
             CHECK(v["limits"]["netOpsKill"].boolean());
         },
         true},
        {"address-space", {"--address-space", "128m"}, {{"run.husk.address-space", "134217728"}}, {"/bin/true"},
         [](const Json& v) {
             CHECK(v["exit"]["reason"].str() == "exited");
             CHECK(v["limits"]["addressSpaceBytes"].num() == 128 << 20);
         }},
        // Last: the die-with-parent test below takes it from the end.
        {"die-with-parent", {"--die-with-parent"}, {{"run.husk.die-with-parent", "true"}}, {"/bin/true"},
         [](const Json& v) {
             CHECK(v["exit"]["reason"].str() == "exited");
             CHECK(v["limits"]["dieWithParent"].boolean());
         }},
    };
    return table;
}

// The run.husk.* members of an annotations object.
std::map<std::string, std::string> husk_annotations(const Json& annotations) {
    std::map<std::string, std::string> out;
    for (const auto& [key, value] : annotations.members())
        if (key.starts_with("run.husk.")) out[key] = value.str();
    return out;
}

// A bundle running `program`, with the row's annotations when `spelled_as_annotation`.
Bundle spelled_bundle(Sandbox& sb, const Row& row, bool spelled_as_annotation, std::vector<std::string> program) {
    Bundle b = with_args(sb, std::move(program));
    if (spelled_as_annotation) {
        Json annotations = Json::object();
        for (const auto& [key, value] : row.annotations) annotations[key] = value;
        b.config["annotations"] = annotations;
    }
    return b;
}

// What one spelling of a created container shows: state's husk annotations, and how exec and update answered.
struct Seen {
    std::map<std::string, std::string> annotations;
    int exec_status = -1;
    std::string exec_error;
    int update_status = -1;
};

Seen create_and_look(Sandbox& sb, const Row& row, bool spelled_as_annotation) {
    Bundle b = spelled_bundle(sb, row, spelled_as_annotation, {"/probe", "sleep", "60"});
    const std::string id = sb.id(std::string(row.name) + (spelled_as_annotation ? "-annotation" : "-flag"));
    std::vector<std::string> flags = spelled_as_annotation ? std::vector<std::string>{} : row.flags;
    Output created = sb.create(b, id, flags);
    INFO(created.describe());
    REQUIRE(created.exit_code == 0);
    Seen seen;
    seen.annotations = husk_annotations(sb.state(id)["annotations"]);
    // The exec'd process joins the container's cgroup: with a network policy it must not get CAP_NET_RAW
    // (AF_PACKET would pass the policy's hooks; docs/network-policy.md).
    Output exec = sb.husk({"exec", "--cap", "CAP_NET_RAW", id, "/probe", "report"});
    seen.exec_status = exec.exit_code;
    if (exec.exit_code != 0) seen.exec_error = exec.err;
    // update reads the same effective config (linux.devices, run.husk.oom-group).
    const std::string resources = sb.dir() + "/resources-" + id + ".json";
    write_file(resources, R"({"devices":[{"allow":false,"access":"rwm"}]})");
    Output update = sb.husk({"update", "--resources", resources, id});
    INFO(update.describe());
    seen.update_status = update.exit_code;
    sb.husk({"kill", id, "KILL"});
    wait_for_exit(sb, id);
    delete_and_check(sb, id);
    return seen;
}

// `husk run --verdict` of the row's program in one spelling.
Json run_verdict(Sandbox& sb, const Row& row, bool spelled_as_annotation) {
    Bundle b = spelled_bundle(sb, row, spelled_as_annotation, row.program);
    const std::string id = sb.id(std::string(row.name) + (spelled_as_annotation ? "-run-annotation" : "-run-flag"));
    const std::string verdict = sb.dir() + "/verdict-" + id + ".json";
    std::vector<std::string> flags = spelled_as_annotation ? std::vector<std::string>{} : row.flags;
    flags.insert(flags.end(), {"--verdict", verdict});
    Output run = sb.run(b, id, flags);
    INFO(run.describe());
    std::string text = read_file(verdict);
    INFO("verdict: " << text);
    REQUIRE(lines(text).size() == 1);
    return Json::parse(text);
}

}  // namespace

TEST_CASE("each husk setting means the same as flag and as annotation to state, exec, update and the verdict",
          "[integration][settings]") {
    const Row& row = rows()[GENERATE(range(size_t(0), rows().size()))];
    INFO("setting: " << row.name);
    Sandbox sb;
    require_ok(sb.husk({"tenant", "set", tenant_name}));

    Seen by_flag = create_and_look(sb, row, false);
    Seen by_annotation = create_and_look(sb, row, true);
    CHECK(by_flag.annotations == row.annotations);
    CHECK(by_annotation.annotations == row.annotations);
    CHECK(by_flag.exec_status == by_annotation.exec_status);
    if (row.net_policy) {
        CHECK(by_flag.exec_status != 0);
        CHECK_THAT(by_flag.exec_error, Contains("has CAP_NET_RAW"));
        CHECK_THAT(by_annotation.exec_error, Contains("has CAP_NET_RAW"));
    } else {
        CHECK(by_flag.exec_status == 0);
    }
    CHECK(by_flag.update_status == 0);
    CHECK(by_annotation.update_status == 0);

    Json flag_verdict = run_verdict(sb, row, false);
    Json annotation_verdict = run_verdict(sb, row, true);
    row.expect(flag_verdict);
    row.expect(annotation_verdict);
    CHECK(flag_verdict["limits"].dump() == annotation_verdict["limits"].dump());
    CHECK(flag_verdict["exit"]["reason"].str() == annotation_verdict["exit"]["reason"].str());
    check_nothing_left(sb);
}

TEST_CASE("husk sandbox writes each setting's flag into its config as the annotation, and its verdict shows it",
          "[integration][settings][sandbox]") {
    const Row& row = rows()[GENERATE(range(size_t(0), rows().size()))];
    INFO("setting: " << row.name);
    Sandbox sb;
    require_ok(sb.husk({"tenant", "set", tenant_name}));
    std::vector<std::string> printed = {"sandbox", "--print-config"};
    printed.insert(printed.end(), row.flags.begin(), row.flags.end());
    printed.insert(printed.end(), {"--", "/bin/true"});
    Output config = sb.husk(printed);
    INFO(config.describe());
    REQUIRE(config.exit_code == 0);
    std::map<std::string, std::string> annotations = husk_annotations(Json::parse(config.out)["annotations"]);
    for (const auto& [key, value] : row.annotations) CHECK(annotations[key] == value);

    const std::string verdict = sb.dir() + "/sandbox-verdict.json";
    std::vector<std::string> run = {"sandbox", "--id", sb.id(std::string("sandbox-") + row.name), "--verdict", verdict};
    run.insert(run.end(), row.flags.begin(), row.flags.end());
    run.push_back("--");
    // The probe is not in the host view: the host's programs instead.
    std::vector<std::string> program = row.program;
    if (program.at(0) == "/probe" && program.at(1) == "sleep") program = {"/bin/sleep", "60"};
    if (program.at(0) == "/probe" && program.at(1) == "ignore-term") program = {"/bin/sh", "-c", "trap '' TERM; sleep 60"};
    run.insert(run.end(), program.begin(), program.end());
    Output ran = sb.husk(run);
    INFO(ran.describe());
    std::string text = read_file(verdict);
    INFO("verdict: " << text);
    REQUIRE(lines(text).size() == 1);
    row.expect(Json::parse(text));
    check_nothing_left(sb);
}

TEST_CASE("run.husk.die-with-parent, like --die-with-parent: husk SIGKILLed, the kernel kills the container with it",
          "[integration][settings][die-with-parent]") {
    const bool spelled_as_annotation = GENERATE(false, true);
    INFO((spelled_as_annotation ? "annotation" : "flag"));
    Sandbox sb;
    const Row& row = rows().back();
    REQUIRE(std::string(row.name) == "die-with-parent");
    Bundle b = spelled_bundle(sb, row, spelled_as_annotation, {"/bin/sleep", "100"});
    b.write();
    const std::string id = sb.id("lost"), pid_file = sb.dir() + "/init.pid";
    std::vector<std::string> args = {"run", "--keep", "--bundle", b.dir, "--pid-file", pid_file};
    if (!spelled_as_annotation) args.push_back("--die-with-parent");
    args.push_back(id);
    Process husk = sb.spawn_husk(args);
    pid_t init = 0;
    for (auto deadline = std::chrono::steady_clock::now() + Ms(20000);
         init == 0 && std::chrono::steady_clock::now() < deadline; std::this_thread::sleep_for(Ms(10))) {
        std::string text = read_file(pid_file);
        if (!text.empty()) init = static_cast<pid_t>(std::stol(text));
    }
    REQUIRE(init != 0);
    for (auto deadline = std::chrono::steady_clock::now() + Ms(20000);
         !sb.state(id)["husk"].contains("started") && std::chrono::steady_clock::now() < deadline;)
        std::this_thread::sleep_for(Ms(10));
    REQUIRE(::kill(husk.pid(), SIGKILL) == 0);
    husk.wait();
    // init had PR_SET_PDEATHSIG from the setting, however it was spelled.
    wait_until_init_exited(pid_file);
    Json st = sb.state(id);
    INFO(st.dump());
    CHECK(st["husk"]["exit"]["reason"].str() == "unknown");
    CHECK_THAT(st["husk"]["exit"]["detail"].str(), Contains("--die-with-parent"));
    require_ok(sb.husk({"delete", id}));
    check_nothing_left(sb);
}

TEST_CASE("after create only the container's effective config counts: the bundle's may change or go",
          "[integration][settings]") {
    Sandbox sb;
    Bundle b = with_args(sb, {"/probe", "sleep", "60"});
    // A poststop hook that leaves a mark on the host, to see delete read the hooks create stored.
    const std::string mark = sb.dir() + "/poststop-ran";
    b.config["hooks"]["poststop"] = Json::array(
        {Json::object({{"path", "/bin/sh"}, {"args", Json::strings({"sh", "-c", "touch " + mark})}})});
    const std::string id = sb.id("truth");
    require_ok(sb.create(b, id, {"--net-allow", "127.0.0.1/32:1"}));
    // The stored config says what the flag set; the bundle's file never did.
    Json stored = Json::parse(read_file(sb.root() + "/" + id + "/config.json"));
    CHECK(stored["annotations"]["run.husk.net-allow"].str() == "127.0.0.1/32:1");
    CHECK_FALSE(Json::parse(read_file(b.config_path())).contains("annotations"));
    // A bundle rewritten (no hooks, every capability) or removed changes nothing for the container.
    b.config.erase("hooks");
    add_capability(b.config, "CAP_NET_RAW");
    b.write();
    Output exec = sb.husk({"exec", "--cap", "CAP_NET_RAW", id, "/probe", "report"});
    INFO(exec.describe());
    CHECK(exec.exit_code != 0);
    CHECK_THAT(exec.err, Contains("has CAP_NET_RAW"));
    REQUIRE(::unlink(b.config_path().c_str()) == 0);
    require_ok(sb.husk({"exec", id, "/probe", "report"}));
    sb.husk({"kill", id, "KILL"});
    wait_for_exit(sb, id);
    require_ok(sb.husk({"delete", id}));
    CHECK(::access(mark.c_str(), F_OK) == 0);
    check_nothing_left(sb);
}

TEST_CASE("a stored config changed after create is refused, not trusted, and the container still deletes",
          "[integration][settings]") {
    Sandbox sb;
    Bundle b = with_args(sb, {"/probe", "sleep", "60"});
    const std::string id = sb.id("tampered");
    require_ok(sb.create(b, id, {"--net-ops", "3"}));
    const std::string stored = sb.root() + "/" + id + "/config.json";
    Json config = Json::parse(read_file(stored));
    config["annotations"]["run.husk.net-ops"] = "0";  // a value create would have refused
    write_file(stored, config.dump(), 0600);
    Output exec = sb.husk({"exec", id, "/probe", "report"});
    INFO(exec.describe());
    CHECK(exec.exit_code != 0);
    CHECK_THAT(exec.err, Contains(stored) && Contains("run.husk.net-ops"));
    Output update = sb.husk({"update", "--pids-limit", "10", id});
    CHECK(update.exit_code != 0);
    CHECK_THAT(update.err, Contains(stored));
    sb.husk({"kill", id, "KILL"});
    wait_for_exit(sb, id);
    Output deleted = sb.husk({"delete", id});
    INFO(deleted.describe());
    CHECK(deleted.exit_code == 0);
    CHECK_THAT(deleted.err, Contains("poststop hooks not run"));
    check_nothing_left(sb);
}
