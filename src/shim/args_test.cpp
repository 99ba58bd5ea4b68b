#include "shim/args.hpp"

#include <catch2/catch.hpp>

#include <vector>

#include "shim/paths.hpp"
#include "shim/task_options.hpp"
#include "ttrpc/protobuf.hpp"

namespace husk::shim {
namespace {

Result<ShimArgs> parse(std::vector<const char*> words) {
    words.insert(words.begin(), "containerd-shim-husk-v2");
    return parse_shim_args(std::span<char* const>(const_cast<char* const*>(words.data()), words.size()));
}

}  // namespace

TEST_CASE("the shim's command line as containerd 1.6 writes it, in Go's flag spellings", "[shim]") {
    auto start = parse({"-namespace", "k8s.io", "-address", "/run/containerd/containerd.sock", "-publish-binary",
                        "/usr/bin/containerd", "-id", "abc", "-debug", "start"});
    REQUIRE(start);
    CHECK(start->ns == "k8s.io");
    CHECK(start->address == "/run/containerd/containerd.sock");
    CHECK(start->publish_binary == "/usr/bin/containerd");
    CHECK(start->id == "abc");
    CHECK(start->debug);
    CHECK(start->action == Action::start);
    auto remove = parse({"--namespace=default", "-id=x", "-bundle", "/b", "delete"});
    REQUIRE(remove);
    CHECK(remove->action == Action::remove);
    CHECK(remove->bundle == "/b");
    CHECK(parse({"-namespace", "n", "-id", "x"})->action == Action::serve);
    CHECK(parse({"-v"})->version);
}

TEST_CASE("a command line the shim cannot follow is an error naming what is wrong", "[shim]") {
    CHECK(parse({"-namespace", "n", "-id", "x", "-bogus", "1", "start"}).error().message() == "flag provided but not defined: -bogus");
    CHECK(parse({"-namespace", "n", "-id"}).error().message() == "flag needs an argument: -id");
    CHECK(parse({"-namespace", "n", "-id", "x", "stop"}).error().message() == "unknown action \"stop\" (start, delete)");
    CHECK(parse({"-id", "x", "start"}).error().message() == "shim namespace cannot be empty (-namespace)");
    CHECK(parse({"-namespace", "n", "start"}).error().message() == "the task's id is missing (-id)");
    CHECK(parse({"-namespace", "n", "-id", "x", "start", "extra"}).error().message() == "unexpected argument after start");
}

TEST_CASE("the shim's state root is under /run/containerd/husk for a namespace name only", "[shim]") {
    CHECK(*state_root("default") == "/run/containerd/husk/default");
    CHECK(*state_root("k8s.io") == "/run/containerd/husk/k8s.io");
    CHECK_FALSE(state_root(".."));
    CHECK_FALSE(state_root("a/b"));
    CHECK_FALSE(state_root(""));
    CHECK_FALSE(state_root(std::string(77, 'a')));
}

TEST_CASE("one socket per group, named from containerd's address, the namespace and the group", "[shim]") {
    std::string a = socket_address("/run/containerd/containerd.sock", "k8s.io", "pod1");
    CHECK(a.starts_with("unix:///run/containerd/s/husk-"));
    CHECK(a.size() == std::string("unix:///run/containerd/s/husk-").size() + 32);
    CHECK(a == socket_address("/run/containerd/containerd.sock", "k8s.io", "pod1"));
    CHECK(a != socket_address("/run/containerd/containerd.sock", "k8s.io", "pod2"));
    CHECK(a != socket_address("/run/containerd/containerd.sock", "default", "pod1"));
    CHECK(a != socket_address("/tmp/other.sock", "k8s.io", "pod1"));
    CHECK(socket_path(a) == a.substr(7));
}

TEST_CASE("task options: runc's types read, what husk cannot do refused", "[shim]") {
    CHECK_FALSE(parse_task_options(std::nullopt)->no_pivot);
    ttrpc::ProtoWriter no_pivot;
    no_pivot.boolean(1, true);
    CHECK(parse_task_options(ttrpc::Any{"containerd.linux.runc.CreateOptions", no_pivot.data()})->no_pivot);
    CHECK(parse_task_options(ttrpc::Any{"containerd.runc.v1.Options", no_pivot.data()})->no_pivot);
    CHECK(parse_task_options(ttrpc::Any{"runtimeoptions.v1.Options", "\x0a\x01x"}));
    ttrpc::ProtoWriter systemd;
    systemd.boolean(9, true);
    CHECK_FALSE(parse_task_options(ttrpc::Any{"containerd.runc.v1.Options", systemd.data()}));
    // Field 9 of runc's older CreateOptions is shim_cgroup, a string: not a systemd switch.
    ttrpc::ProtoWriter shim_cgroup;
    shim_cgroup.string(9, "/shims");
    CHECK(parse_task_options(ttrpc::Any{"containerd.linux.runc.CreateOptions", shim_cgroup.data()}));
    CHECK_FALSE(parse_task_options(ttrpc::Any{"containerd.runc.v1.Options", "\x08"}));  // truncated
    CHECK_FALSE(parse_task_options(ttrpc::Any{"example.Options", ""}));
}

}  // namespace husk::shim
