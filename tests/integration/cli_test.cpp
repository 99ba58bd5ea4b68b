// The command line as callers probe it: --version, spec, features, --help of every verb, unknown verbs
// (podman runs `checkpoint --help` to learn whether a runtime can checkpoint), and both --root spellings.
#include <catch2/catch.hpp>

#include <sys/stat.h>

#include <algorithm>
#include <set>

#include "harness.hpp"

using namespace husk::test;
using Catch::Matchers::Contains;
using Catch::Matchers::Matches;

namespace {

const std::vector<std::string> all_verbs = {"create", "start", "run",  "state",   "kill",
                                            "delete", "list",  "spec", "features"};

// A JSON value with the members of every object sorted by key: two documents compare equal when they
// hold the same data, whatever order their writers chose.
std::string canonical(const Json& value) {
    if (value.is_object()) {
        std::vector<Json::Member> members = value.members();
        std::sort(members.begin(), members.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
        std::string out = "{";
        for (const auto& [key, member] : members) out += Json(key).dump() + ":" + canonical(member) + ",";
        return out + "}";
    }
    if (value.is_array()) {
        std::string out = "[";
        for (const Json& item : value.items()) out += canonical(item) + ",";
        return out + "]";
    }
    return value.dump();
}

// `runc spec` (runc 1.1) as husk must write it: the sandbox's base config is that document with a few
// test-friendly changes, undone here.
Json runc_default_spec(const Sandbox& sb) {
    Json spec = sb.base_config();
    spec["process"]["terminal"] = true;
    spec["process"]["args"] = Json::strings({"sh"});
    spec["process"]["env"] =
        Json::strings({"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", "TERM=xterm"});
    spec["process"]["capabilities"]["ambient"] = spec["process"]["capabilities"]["bounding"];
    spec["root"]["readonly"] = true;
    spec["hostname"] = "runc";
    return spec;
}

void require_ok(const Output& out) {
    INFO(out.describe());
    REQUIRE(out.exit_code == 0);
}

}  // namespace

TEST_CASE("--version prints the husk version, the spec version and the libseccomp version", "[integration][cli]") {
    std::string flag = GENERATE(as<std::string>{}, "--version", "-v");
    Sandbox sb;
    Output out = sb.command({paths().husk, flag});
    INFO(out.describe());
    CHECK(out.exit_code == 0);
    std::vector<std::string> printed = lines(out.out);
    REQUIRE(printed.size() == 3);
    CHECK_THAT(printed[0], Matches(R"(husk version \S+)"));
    CHECK(printed[1] == "spec: 1.3.0");
    CHECK_THAT(printed[2], Matches(R"(libseccomp: \d+\.\d+\.\d+)"));
    CHECK(out.err.empty());
}

TEST_CASE("spec writes runc's default config.json and refuses to overwrite it", "[integration][cli]") {
    Sandbox sb;
    std::string dir = sb.dir() + "/spec";
    mkdir(dir.c_str(), 0755);
    SpawnOptions in_dir;
    in_dir.cwd = dir;
    require_ok(sb.husk({"spec"}, in_dir));
    std::string written = read_file(dir + "/config.json");
    Json spec = Json::parse(written);
    CHECK(spec["ociVersion"].str() == "1.3.0");
    CHECK(canonical(spec) == canonical(runc_default_spec(sb)));

    Output again = sb.husk({"spec"}, in_dir);
    INFO(again.describe());
    CHECK(again.exit_code != 0);
    CHECK(lines(again.err).size() == 1);
    CHECK_THAT(again.err, Contains("exists"));
    CHECK(read_file(dir + "/config.json") == written);
    check_nothing_left(sb);
}

TEST_CASE("the config written by spec runs once its process is the probe without a terminal", "[integration][cli]") {
    Sandbox sb;
    Bundle b = sb.bundle();  // a rootfs; config.json comes from `husk spec --bundle`
    require_ok(sb.husk({"spec", "--bundle", b.dir}));
    b.config = Json::parse(read_file(b.config_path()));
    b.config["process"]["args"] = Json::strings({"/probe", "report"});
    b.config["process"]["terminal"] = false;
    b.config["process"]["env"].push_back(sb.marker());
    Json r = sb.run_probe(b);
    CHECK(r["hostname"].str() == "runc");
    CHECK(r["no_new_privs"].boolean());
    std::string root_options;
    for (const Json& m : r["mounts"].items())
        if (m["dest"].str() == "/") root_options = m["options"].str();
    CHECK_THAT("," + root_options + ",", Contains(",ro,"));  // root.readonly
    check_nothing_left(sb);
}

TEST_CASE("features prints the runtime-spec features document", "[integration][cli]") {
    Sandbox sb;
    Output out = sb.husk({"features"});
    require_ok(out);
    Json f = Json::parse(out.out);
    CHECK_FALSE(f["ociVersionMin"].str().empty());
    CHECK(f["ociVersionMax"].str() == "1.3.0");
    std::vector<std::string> hooks = f["hooks"].strs();
    CHECK(std::set<std::string>(hooks.begin(), hooks.end()) ==
          std::set<std::string>{"prestart", "createRuntime", "createContainer", "startContainer", "poststart",
                                "poststop"});
    CHECK(hooks.size() == 6);
    std::vector<std::string> namespaces = f["linux"]["namespaces"].strs();
    CHECK(std::set<std::string>(namespaces.begin(), namespaces.end()) ==
          std::set<std::string>{"cgroup", "ipc", "mount", "network", "pid", "time", "user", "uts"});
    CHECK(namespaces.size() == 8);
    CHECK(f["linux"]["cgroup"]["v2"].boolean());
    CHECK_FALSE(f["linux"]["cgroup"]["v1"].boolean());
    // features.md: "enabled" means supported; the lists are what husk resolves.
    CHECK(f["linux"]["seccomp"]["enabled"].boolean());
    std::vector<std::string> actions = f["linux"]["seccomp"]["actions"].strs();
    CHECK(std::set<std::string>(actions.begin(), actions.end()).count("SCMP_ACT_NOTIFY") == 1);
    // This host's kernel has Landlock ABI 7 (husk's own extension, not in features-linux.md).
    CHECK(f["linux"]["landlock"]["enabled"].boolean());
    CHECK(f["linux"]["landlock"]["abi"].num() >= 1);
    std::vector<std::string> fs = f["linux"]["landlock"]["accessFS"].strs();
    CHECK(std::set<std::string>(fs.begin(), fs.end()).count("write_file") == 1);
    check_nothing_left(sb);
}

TEST_CASE("--help of every verb, and of husk itself, exits 0 with a usage", "[integration][cli]") {
    Sandbox sb;
    Output top = sb.command({paths().husk, "--help"});
    INFO(top.describe());
    CHECK(top.exit_code == 0);
    for (const std::string& verb : all_verbs) {
        CHECK_THAT(top.out, Contains("  " + verb + " "));
        Output out = sb.husk({verb, "--help"});
        INFO(out.describe());
        CHECK(out.exit_code == 0);
        CHECK_THAT(out.out, Contains("Usage: husk " + verb));
    }
    check_nothing_left(sb);
}

TEST_CASE("an unknown verb exits non-zero with one line naming it, --help or not", "[integration][cli]") {
    std::string command = GENERATE(as<std::string>{}, "checkpoint --help", "checkpoint", "frobnicate");
    std::vector<std::string> args;
    for (size_t at = 0; at != std::string::npos;) {
        size_t space = command.find(' ', at);
        args.push_back(command.substr(at, space == std::string::npos ? space : space - at));
        at = space == std::string::npos ? space : space + 1;
    }
    Sandbox sb;
    Output out = sb.husk(args);
    INFO(out.describe());
    CHECK(out.exit_code != 0);
    CHECK(lines(out.err).size() == 1);
    CHECK_THAT(out.err, Contains(args[0]));
    check_nothing_left(sb);
}

TEST_CASE("--root=DIR and --root DIR name the same state root", "[integration][cli]") {
    Sandbox sb;
    Bundle b = sb.bundle();
    b.config["process"]["args"] = Json::strings({"/probe", "sleep", "60"});
    b.write();
    std::string id = sb.id("root");
    Output created = sb.command({paths().husk, "--root=" + sb.root(), "create", "--bundle", b.dir, id});
    require_ok(created);
    struct stat st {};
    CHECK(stat((sb.root() + "/" + id).c_str(), &st) == 0);
    CHECK(sb.state(id)["status"].str() == "created");  // sb.husk spells it `--root DIR`

    Output listed = sb.command({paths().husk, "--root=" + sb.root(), "list", "-q"});
    require_ok(listed);
    CHECK(lines(listed.out) == std::vector<std::string>{id});
    require_ok(sb.command({paths().husk, "--root=" + sb.root(), "delete", "--force", id}));
    CHECK(sb.husk({"state", id}).exit_code != 0);
    check_nothing_left(sb);
}
