// run.husk.root=tmpfs: the root is a fresh tmpfs over the rootfs directory, inside the container's mount
// namespace; mount points are made in it, never in the host directory, which keeps its content unseen.
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <set>
#include <string>

#include "mnt/rootfs.hpp"
#include "mnt/test_support.hpp"

namespace mnt = husk::mnt;
namespace spec = husk::spec;
using namespace husk::mnt::testing;

namespace {

std::set<std::string> entries(const std::string& dir) {
    std::set<std::string> names;
    for (const auto& entry : std::filesystem::directory_iterator(dir)) names.insert(entry.path().filename());
    return names;
}

}  // namespace

TEST_CASE("a tmpfs root holds the mount points and husk's /etc, the covered directory stays untouched", "[mnt]") {
    const std::string before = host_mountinfo();
    TempDir covered("husk-mnt-tmpfs-root");
    TempDir host("husk-mnt-tmpfs-root-host");
    write_text(covered / "host-file", "not for the container");
    write_text(host / "hello", "hi");

    spec::Spec s = base_spec();
    s.linux->namespaces.push_back({"user", ""});
    s.root.readonly = true;
    s.mounts.push_back(make_mount("/opt/data", "none", host.path, {"rbind", "ro"}));
    s.mounts.push_back(make_mount("/tmp", "tmpfs", "tmpfs", {"nosuid", "nodev", "mode=1777"}));
    mnt::RootfsOptions options;
    options.root_tmpfs = true;
    mnt::RootfsPlan plan = prepare(s, covered.path, options);

    Report r = run_container(UserNs::yes, [&](const Reporter& out) {
        out.step("mounts and pivot", mount_and_pivot(plan));
        out.step("finalize", mnt::apply_finalize(plan));
        out.put("type:/", fs_type("/"));
        out.put("stat:/", describe("/"));
        out.put("stat:/host-file", describe("/host-file"));
        out.put("read:/opt/data/hello", content_of("/opt/data/hello"));
        out.put("read:/etc/passwd", content_of("/etc/passwd"));
        out.put("read:/etc/group", content_of("/etc/group"));
        out.put("write:/x", try_write("/x"));
        out.put("write:/tmp/x", try_write("/tmp/x"));
    });

    INFO("error: " << r["error"]);
    REQUIRE(r["exit"] == "0");
    CHECK(r["type:/"] == "tmpfs");
    CHECK(r["stat:/"] == "d 0755");
    CHECK(starts_with(r["stat:/host-file"], "missing"));
    CHECK(r["read:/opt/data/hello"] == "hi");
    // The report is line-based: a newline in a value comes back as '|'.
    CHECK(r["read:/etc/passwd"] ==
          "root:x:0:0:root:/root:/bin/sh|nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin|");
    CHECK(r["read:/etc/group"] == "root:x:0:|nogroup:x:65534:|");
    CHECK(r["write:/x"] == "EROFS");
    CHECK(r["write:/tmp/x"] == "ok");
    // Nothing was made in the covered directory: no /opt, /tmp or /etc beside the file that was there.
    CHECK(entries(covered.path) == std::set<std::string>{"host-file"});
    CHECK(host_mountinfo() == before);
}
