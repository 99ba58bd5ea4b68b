// Inside the container (via the probe): mounts, masked and read-only paths, read-only root, devices.
#include <catch2/catch.hpp>

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>

#include "harness.hpp"

using namespace husk::test;
using Catch::Matchers::Contains;

namespace {

// The mount whose destination is `dest` (the last one: it is the visible one), or null.
const Json* find_mount(const Json& report, const std::string& dest) {
    const Json* found = nullptr;
    for (const Json& m : report["mounts"].items())
        if (m["dest"].str() == dest) found = &m;
    return found;
}

bool has_option(const std::string& options, const std::string& option) {
    return ("," + options + ",").find("," + option + ",") != std::string::npos;
}

// Runs a shell script in the container; each line of output that is JSON (one per probe call).
std::vector<Json> probe_lines(Sandbox& sb, Bundle& b, const std::string& script) {
    b.config["process"]["args"] = Json::strings({"/bin/sh", "-c", script});
    Output out = sb.run(b, sb.id("script"));
    INFO(out.describe());
    REQUIRE(out.exit_code == 0);
    std::vector<Json> results;
    for (const std::string& line : lines(out.out)) results.push_back(line.front() == '{' ? Json::parse(line) : Json(line));
    return results;
}

}  // namespace

TEST_CASE("the configured mounts are present with their types and options", "[integration][inside]") {
    Sandbox sb;
    Json r = sb.run_probe(sb.bundle());
    struct Expected {
        const char* dest;
        std::vector<std::string> types;
        std::vector<std::string> options;
    };
    const std::vector<Expected> expected = {
        {"/", {}, {}},
        {"/proc", {"proc"}, {}},
        {"/dev", {"tmpfs"}, {"nosuid"}},
        {"/dev/pts", {"devpts"}, {"nosuid", "noexec"}},
        {"/dev/shm", {"tmpfs"}, {"nosuid", "noexec", "nodev"}},
        {"/dev/mqueue", {"mqueue"}, {"nosuid", "noexec", "nodev"}},
        {"/sys", {"sysfs"}, {"ro", "nosuid", "noexec", "nodev"}},
        {"/sys/fs/cgroup", {"cgroup2", "cgroup"}, {"ro"}},
    };
    for (const Expected& e : expected) {
        INFO("mount " << e.dest);
        const Json* m = find_mount(r, e.dest);
        REQUIRE(m != nullptr);
        if (!e.types.empty()) CHECK_THAT(e.types, Catch::Matchers::VectorContains((*m)["type"].str()));
        for (const std::string& option : e.options) CHECK(has_option((*m)["options"].str(), option));
    }
    for (const Json& m : r["mounts"].items()) {
        INFO("mount " << m.dump());
        CHECK_THAT(m["dest"].str(), !Contains(sb.dir()));  // the host's view of the bundle is gone
    }
}

TEST_CASE("mountinfo lists the rootfs first and then the configured mounts in config order", "[integration][inside]") {
    Sandbox sb;
    Bundle b = sb.bundle();
    // Mixed kinds in an order that is neither alphabetical nor grouped by kind: a bind (recursive, of a
    // directory), a new tmpfs, a bind of a file given relative to the bundle, a new proc.
    REQUIRE(::mkdir((b.dir + "/zeta-source").c_str(), 0755) == 0);
    write_file(b.dir + "/alpha.txt", "alpha\n");
    auto add = [&](const char* dest, const char* type, const std::string& source, std::vector<std::string> options) {
        b.config["mounts"].push_back(Json::object({{"destination", dest}, {"type", type}, {"source", source},
                                                   {"options", Json::strings(std::move(options))}}));
    };
    add("/zeta", "bind", b.dir + "/zeta-source", {"rbind", "ro"});
    add("/mid", "tmpfs", "tmpfs", {"nosuid", "size=1m"});
    add("/alpha", "bind", "alpha.txt", {"bind"});
    add("/beta", "proc", "proc", {"nosuid", "noexec"});
    std::vector<std::string> expected = {"/"};
    for (const Json& m : b.config["mounts"].items()) expected.push_back(m["destination"].str());

    Json r = sb.run_probe(b);
    // runtime-spec config.md "Mounts": the runtime MUST mount entries in the listed order. Linux >= 6.8 lists
    // mountinfo in creation order (the unique mount id; the id printed is the older, reusable one): binds
    // cloned before the rootfs showed up first.
    std::vector<std::string> seen;
    std::string listing;
    for (const Json& m : r["mounts"].items()) {
        listing += std::to_string(static_cast<long long>(m["id"].num())) + " " + m["dest"].str() + "\n";
        if (std::find(expected.begin(), expected.end(), m["dest"].str()) != expected.end() &&
            std::find(seen.begin(), seen.end(), m["dest"].str()) == seen.end())
            seen.push_back(m["dest"].str());
    }
    INFO("mountinfo in the container:\n" << listing);
    REQUIRE_FALSE(r["mounts"].items().empty());
    CHECK(r["mounts"].items().front()["dest"].str() == "/");
    CHECK(seen == expected);
}

TEST_CASE("masked paths show nothing: files read empty, directories are empty", "[integration][inside]") {
    Sandbox sb;
    Bundle b = sb.bundle();
    // Masked paths that exist on this kernel (the base config also lists some that do not, like
    // /proc/kcore here: those must be skipped without error).
    std::vector<Json> r = probe_lines(sb, b,
        "/probe stat /proc/keys; /probe read /proc/keys; /probe read /proc/timer_list; /probe stat /sys/firmware; "
        "ls -A /sys/firmware | wc -l; ls -A /proc/acpi | wc -l");
    REQUIRE(r.size() == 6);
    // runc and crun mask files with a bind mount of /dev/null and directories with a read-only tmpfs.
    CHECK(r[0]["type"].str() == "c");
    CHECK(r[0]["major"].num() == 1);
    CHECK(r[0]["minor"].num() == 3);
    CHECK(r[1]["errno"].num() == 0);
    CHECK(r[1]["content"].str().empty());
    CHECK(r[2]["content"].str().empty());
    CHECK(r[3]["type"].str() == "d");
    CHECK(r[4].str() == "0");
    CHECK(r[5].str() == "0");
}

TEST_CASE("readonly paths refuse writes with EROFS", "[integration][inside]") {
    Sandbox sb;
    Bundle b = sb.bundle();
    // Both files belong to the container's own (new) UTS and network namespaces: harmless if writable.
    std::vector<Json> r = probe_lines(sb, b,
        "/probe write /proc/sys/kernel/domainname; /probe write /proc/sys/net/ipv4/ip_forward; "
        "/probe read /proc/sys/kernel/ostype");
    REQUIRE(r.size() == 3);
    CHECK(r[0]["errno"].num() == EROFS);
    CHECK(r[1]["errno"].num() == EROFS);
    CHECK(r[2]["errno"].num() == 0);
    CHECK_THAT(r[2]["content"].str(), Contains("Linux"));
}

TEST_CASE("a read-only root refuses writes while the tmpfs mounts stay writable", "[integration][inside]") {
    Sandbox sb;
    Bundle b = sb.bundle();
    b.config["root"]["readonly"] = true;
    std::vector<Json> r = probe_lines(sb, b, "/probe write /tmp/file; /probe write /etc/passwd; /probe write /dev/shm/file");
    REQUIRE(r.size() == 3);
    CHECK(r[0]["errno"].num() == EROFS);
    CHECK(r[1]["errno"].num() == EROFS);
    CHECK(r[2]["errno"].num() == 0);
}

// podman's --tmpfs (and /tmp, /var/tmp, /run of --read-only) asks for "tmpcopyup": the tmpfs starts with a
// copy of the image's directory, keeps its mode (no mode= given), and takes writes the read-only root refuses.
TEST_CASE("a tmpfs with tmpcopyup over a read-only root holds a copy of the image's directory", "[integration][inside]") {
    Sandbox sb;
    Bundle b = sb.bundle();
    b.config["root"]["readonly"] = true;
    b.config["mounts"].push_back(Json::object({{"destination", "/etc"}, {"type", "tmpfs"}, {"source", "tmpfs"},
                                               {"options", Json::strings({"rw", "nosuid", "nodev", "tmpcopyup"})}}));
    std::vector<Json> r = probe_lines(sb, b, "head -1 /etc/passwd; stat -c %a /etc; /probe write /etc/new; /probe write /x");
    REQUIRE(r.size() == 4);
    CHECK(r[0].str() == "root:x:0:0:root:/root:/bin/sh");
    CHECK(r[1].str() == "755");
    CHECK(r[2]["errno"].num() == 0);
    CHECK(r[3]["errno"].num() == EROFS);
    struct stat st {};
    CHECK(::stat((b.rootfs() + "/etc/new").c_str(), &st) != 0);  // written to the tmpfs, not to the image
}

TEST_CASE("linux.devices creates each node with its type, numbers and mode", "[integration][inside]") {
    Sandbox sb;
    Bundle b = sb.bundle();
    b.config["linux"]["devices"] = Json::array({Json::object({{"path", "/dev/husk-null"}, {"type", "c"}, {"major", 1},
                                                               {"minor", 3}, {"fileMode", 0640}, {"uid", 0}, {"gid", 0}})});
    b.config["process"]["args"] = Json::strings({"/probe", "stat", "/dev/husk-null"});
    Json r = sb.run_probe(b);
    CHECK(r["errno"].num() == 0);
    CHECK(r["type"].str() == "c");
    CHECK(r["major"].num() == 1);
    CHECK(r["minor"].num() == 3);
    CHECK(r["mode"].num() == 0640);
}

TEST_CASE("the default devices exist and work", "[integration][inside]") {
    Sandbox sb;
    Bundle b = sb.bundle();
    std::vector<Json> r = probe_lines(sb, b,
        "for d in null zero full random urandom tty; do /probe stat /dev/$d; done; "
        "/probe write /dev/null; /probe stat /dev/ptmx; /probe stat /dev/fd; /probe stat /dev/stdout");
    REQUIRE(r.size() == 10);
    const std::vector<std::pair<int, int>> numbers = {{1, 3}, {1, 5}, {1, 7}, {1, 8}, {1, 9}, {5, 0}};
    for (size_t i = 0; i < numbers.size(); ++i) {
        INFO(r[i].dump());
        CHECK(r[i]["type"].str() == "c");
        CHECK(r[i]["major"].num() == numbers[i].first);
        CHECK(r[i]["minor"].num() == numbers[i].second);
    }
    CHECK(r[6]["errno"].num() == 0);
    CHECK(r[7]["errno"].num() == 0);  // /dev/ptmx: a node or a link to pts/ptmx
    CHECK(r[8]["type"].str() == "l");
    CHECK(r[9]["type"].str() == "l");
}

TEST_CASE("the device allow-list denies other devices and allows listed ones", "[integration][inside]") {
    bool allowed = GENERATE(false, true);
    Sandbox sb;
    Bundle b = sb.bundle();
    // /dev/loop-control (c 10:237, not in runc's default allow-list) bind-mounted from the host:
    // opening it read-only has no side effect.
    b.config["mounts"].push_back(Json::object({{"destination", "/dev/husk-loop-control"}, {"type", "bind"},
                                               {"source", "/dev/loop-control"}, {"options", Json::strings({"bind"})}}));
    if (allowed)
        b.config["linux"]["resources"]["devices"].push_back(
            Json::object({{"allow", true}, {"type", "c"}, {"major", 10}, {"minor", 237}, {"access", "rw"}}));
    b.config["process"]["args"] = Json::strings({"/probe", "open", "/dev/husk-loop-control"});
    Json r = sb.run_probe(b);
    CHECK(r["errno"].num() == (allowed ? 0 : EPERM));
}
