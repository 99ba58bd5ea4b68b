#include <catch2/catch.hpp>
#include <string>

#include "spec/default_spec.hpp"
#include "spec/parse.hpp"
#include "spec/sysctl_rules.hpp"
#include "spec/validate.hpp"

namespace {

using husk::spec::Spec;
using husk::spec::SysctlNamespace;

// runc's default spec: pid, network, ipc, uts and mount namespaces, all new.
Spec with_sysctl(const std::string& key, const std::string& value = "1") {
    Spec spec = husk::spec::parse_config(husk::spec::default_spec_json()).value();
    spec.linux->sysctl = {{key, value}};
    return spec;
}

Spec without_namespace(Spec spec, const std::string& type) {
    std::erase_if(spec.linux->namespaces, [&](const husk::spec::Namespace& ns) { return ns.type == type; });
    return spec;
}

std::string error_of(const Spec& spec) {
    auto result = husk::spec::validate(spec);
    REQUIRE_FALSE(result);
    return result.error().message();
}

}  // namespace

TEST_CASE("sysctl_namespace knows runc's namespaced sysctls and nothing else", "[spec][sysctl]") {
    for (const char* key : {"kernel.msgmax", "kernel.msgmnb", "kernel.msgmni", "kernel.sem", "kernel.shmall",
                            "kernel.shmmax", "kernel.shmmni", "kernel.shm_rmid_forced", "fs.mqueue.msg_max",
                            "fs.mqueue.queues_max"}) {
        INFO(key);
        CHECK(husk::spec::sysctl_namespace(key) == SysctlNamespace::ipc);
    }
    CHECK(husk::spec::sysctl_namespace("net.ipv4.ip_forward") == SysctlNamespace::network);
    CHECK(husk::spec::sysctl_namespace("net.core.somaxconn") == SysctlNamespace::network);
    CHECK(husk::spec::sysctl_namespace("kernel.domainname") == SysctlNamespace::uts);
    CHECK(husk::spec::sysctl_namespace("kernel.hostname") == SysctlNamespace::uts);
    for (const char* key : {"kernel.core_pattern", "kernel.shm_next_id", "kernel.msgmax2", "kernel.modprobe",
                            "vm.overcommit_memory", "fs.file-max", "fs.mqueue", "network.x", "netx.y", "kernel"}) {
        INFO(key);
        CHECK(husk::spec::sysctl_namespace(key) == SysctlNamespace::none);
    }
}

TEST_CASE("validate refuses a sysctl that no namespace isolates, naming the key", "[spec][sysctl]") {
    for (const char* key : {"kernel.core_pattern", "vm.overcommit_memory", "kernel.modprobe", "fs.file-max"}) {
        std::string error = error_of(with_sysctl(key, "|/tmp/x"));
        INFO(error);
        CHECK_THAT(error, Catch::StartsWith("linux.sysctl[\"" + std::string(key) +
                                            "\"]: refused: the kernel does not keep it per namespace, so writing "
                                            "it would change the host (accepted: net.*, fs.mqueue.*, kernel.msgmax"));
    }
}

TEST_CASE("validate accepts a namespaced sysctl only with a namespace of its kind", "[spec][sysctl]") {
    CHECK(husk::spec::validate(with_sysctl("net.ipv4.ip_forward")));
    CHECK(husk::spec::validate(with_sysctl("kernel.shmmax", "4096")));
    CHECK(husk::spec::validate(with_sysctl("fs.mqueue.msg_max", "20")));
    CHECK(husk::spec::validate(with_sysctl("kernel.domainname", "example.org")));

    CHECK(error_of(without_namespace(with_sysctl("net.ipv4.ip_forward"), "network")) ==
          "linux.sysctl[\"net.ipv4.ip_forward\"]: refused: the container would share the host's network namespace, "
          "so writing it would change the host (add {\"type\": \"network\"} to linux.namespaces)");
    CHECK_THAT(error_of(without_namespace(with_sysctl("kernel.shmmax"), "ipc")),
               Catch::StartsWith("linux.sysctl[\"kernel.shmmax\"]: refused: the container would share the host's ipc "
                                 "namespace"));
    CHECK_THAT(error_of(without_namespace(with_sysctl("fs.mqueue.msg_max"), "ipc")),
               Catch::Contains("host's ipc namespace"));
    // uts before the hostname check: the default spec sets a hostname, which needs uts too.
    Spec no_uts = without_namespace(with_sysctl("kernel.domainname", "x"), "uts");
    no_uts.hostname.clear();
    CHECK_THAT(error_of(no_uts), Catch::Contains("host's uts namespace"));
}

TEST_CASE("validate accepts a sysctl with a namespace joined by path (checked against the host at prepare)",
          "[spec][sysctl]") {
    Spec spec = with_sysctl("net.ipv4.ip_forward");
    for (auto& ns : spec.linux->namespaces)
        if (ns.type == "network") ns.path = "/run/netns/pod";
    CHECK(husk::spec::validate(spec));
}

TEST_CASE("validate refuses kernel.hostname as runc does: the hostname field sets it", "[spec][sysctl]") {
    CHECK(error_of(with_sysctl("kernel.hostname", "x")) ==
          "linux.sysctl[\"kernel.hostname\"]: refused: set the container's hostname with the \"hostname\" field");
}

TEST_CASE("validate refuses sysctl keys that are not plain names", "[spec][sysctl]") {
    for (const char* key : {"net..ipv4", ".net.ipv4", "net.ipv4.", "", "net.../etc", "net//ipv4", "net/../kernel/x",
                            "net/./ipv4/ip_forward", "net.ipv4./..x"}) {
        INFO(key);
        CHECK_THAT(error_of(with_sysctl(key)), Catch::StartsWith("linux.sysctl[\"" + std::string(key) + "\"]: "));
    }
    CHECK(error_of(with_sysctl("net..ipv4")) == "linux.sysctl[\"net..ipv4\"]: empty component in sysctl name");
    CHECK(error_of(with_sysctl(std::string("net.ipv4\0.x", 11))) ==
          "linux.sysctl[\"net.ipv4\\x00.x\"]: a sysctl name holds no NUL");
    CHECK(error_of(with_sysctl("net/../kernel/core_pattern")) ==
          "linux.sysctl[\"net/../kernel/core_pattern\"]: a sysctl name has no \".\" or \"..\" component");
}

TEST_CASE("sysctl names are read as sysctl.d(5) says: '/' first keeps the path, '.' first swaps the separators",
          "[spec][sysctl]") {
    using husk::spec::sysctl_path;
    CHECK(sysctl_path("net.ipv4.ip_forward") == "net/ipv4/ip_forward");
    CHECK(sysctl_path("net/ipv4/ip_forward") == "net/ipv4/ip_forward");
    CHECK(sysctl_path("net.ipv4.conf.eth0/100.forwarding") == "net/ipv4/conf/eth0.100/forwarding");
    CHECK(sysctl_path("net/ipv4/conf/eth0.100/forwarding") == "net/ipv4/conf/eth0.100/forwarding");
    CHECK(husk::spec::sysctl_dotted("net/ipv4/conf/eth0.100/forwarding") == "net.ipv4.conf.eth0/100.forwarding");
    // Either spelling is classified (and refused) alike.
    CHECK(husk::spec::sysctl_namespace("net/ipv4/ip_forward") == SysctlNamespace::network);
    CHECK(husk::spec::sysctl_namespace("kernel/shmmni") == SysctlNamespace::ipc);
    CHECK(husk::spec::sysctl_namespace("kernel/core_pattern") == SysctlNamespace::none);
    CHECK(error_of(with_sysctl("kernel/hostname", "x")) ==
          "linux.sysctl[\"kernel/hostname\"]: refused: set the container's hostname with the \"hostname\" field");
}
