#include "seccomp/cache.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdlib>
#include <cstring>
#include <string>

#include "base/dir.hpp"
#include "base/fs.hpp"
#include "seccomp/default_profile.hpp"
#include "seccomp/test_support.hpp"

using namespace husk;
using namespace husk::seccomp;

namespace {

constexpr const char* profile_json = R"({"defaultAction": "SCMP_ACT_ERRNO", "defaultErrnoRet": 1,
  "syscalls": [{"names": ["read", "write", "exit_group"], "action": "SCMP_ACT_ALLOW"},
               {"names": ["personality"], "action": "SCMP_ACT_ALLOW",
                "args": [{"index": 0, "value": 8, "op": "SCMP_CMP_EQ"}]}]})";

struct TempRoot {
    std::string path;
    TempRoot() {
        char name[] = "/tmp/husk-seccomp-cache-XXXXXX";
        REQUIRE(::mkdtemp(name) != nullptr);
        path = name;
    }
    ~TempRoot() { (void)std::system(("rm -rf " + path).c_str()); }
    std::string dir() const { return path + "/" + cache_dir_name; }
};

bool same(const std::vector<sock_filter>& a, const std::vector<sock_filter>& b) {
    return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(sock_filter)) == 0;
}

// The one file the cache holds, by name.
std::string only_entry(const std::string& dir) {
    auto entries = list_dir(dir);
    REQUIRE(entries);
    std::string name;
    for (const auto& entry : *entries)
        if (entry.name != "." && entry.name != "..") {
            CHECK(name.empty());
            name = entry.name;
        }
    REQUIRE_FALSE(name.empty());
    return name;
}

}  // namespace

TEST_CASE("a cached seccomp program is exactly the one the compile gives, and is used the next time", "[seccomp]") {
    TempRoot root;
    SeccompPlan compiled = test::prepare(profile_json);
    SeccompOptions options;
    options.cache_root = root.path;
    SeccompPlan first = test::prepare(profile_json, options);  // compiles and stores
    CHECK(same(first.program, compiled.program));
    struct stat st{};
    REQUIRE(::stat(root.dir().c_str(), &st) == 0);
    CHECK((st.st_mode & 0777) == 0700);
    const std::string name = only_entry(root.dir());
    REQUIRE(::stat((root.dir() + "/" + name).c_str(), &st) == 0);
    CHECK((st.st_mode & 0777) == 0600);
    SeccompPlan second = test::prepare(profile_json, options);  // loads
    CHECK(same(second.program, compiled.program));
    CHECK(second.enosys_stub == compiled.enosys_stub);
    CHECK(second.denial_errnos == compiled.denial_errnos);

    SECTION("what the cache holds is what is loaded") {
        // Change the last instruction's constant in the stored file: the next prepare returns it, which shows
        // the program came from the cache (and why the file must be the caller's own, below).
        auto content = read_file(root.dir() + "/" + name);
        REQUIRE(content);
        (*content)[content->size() - 1] ^= 0x01;
        REQUIRE(::unlink((root.dir() + "/" + name).c_str()) == 0);
        UniqueFd dir = *open_fd(root.dir(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        REQUIRE(write_file_atomic(dir.get(), name, *content, 0600));
        SeccompPlan loaded = test::prepare(profile_json, options);
        CHECK_FALSE(same(loaded.program, compiled.program));

        SECTION("a file others may write is not used") {
            REQUIRE(::chmod((root.dir() + "/" + name).c_str(), 0620) == 0);
            CHECK(same(test::prepare(profile_json, options).program, compiled.program));
        }
        SECTION("a cache directory others may enter is not used") {
            REQUIRE(::chmod(root.dir().c_str(), 0755) == 0);
            CHECK(same(test::prepare(profile_json, options).program, compiled.program));
        }
    }
    SECTION("another profile does not match the stored key") {
        const std::string other = R"({"defaultAction": "SCMP_ACT_ERRNO", "defaultErrnoRet": 1,
          "syscalls": [{"names": ["read", "write", "exit_group", "close"], "action": "SCMP_ACT_ALLOW"}]})";
        CHECK(same(test::prepare(other, options).program, test::prepare(other).program));
    }
    SECTION("a key that differs only in a comparison's value is another key") {
        std::string changed = profile_json;
        changed.replace(changed.find("\"value\": 8"), 10, "\"value\": 9");
        CHECK(same(test::prepare(changed, options).program, test::prepare(changed).program));
        CHECK_FALSE(same(test::prepare(changed).program, compiled.program));
    }
}

TEST_CASE("husk's default profile compiles to the same program with and without the cache", "[seccomp]") {
    TempRoot root;
    const spec::Seccomp profile = default_profile();
    auto compiled = prepare_seccomp(profile);
    REQUIRE(compiled);
    SeccompOptions options;
    options.cache_root = root.path;
    for (int run = 0; run < 2; ++run) {  // the first stores, the second loads
        auto plan = prepare_seccomp(profile, options);
        REQUIRE(plan);
        CHECK(same(plan->program, compiled->program));
    }
}
