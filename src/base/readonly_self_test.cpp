// binary_is_safe_from: when the kernel's permission checks alone keep an unprivileged caller's containers from
// writing husk's binary (docs/rootless.md). Real files, real modes.
#include "base/readonly_self.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>

#include <cstdlib>
#include <string>

#include "husk/unique_fd.hpp"

using husk::IdRange;
using husk::UniqueFd;

namespace {

struct TempFile {
    std::string path;
    TempFile() {
        char name[] = "/tmp/husk-binary-XXXXXX";
        int fd = ::mkstemp(name);
        REQUIRE(fd >= 0);
        ::close(fd);
        path = name;
    }
    ~TempFile() { ::unlink(path.c_str()); }
    bool safe_from(uid_t caller, std::vector<IdRange> ranges = {}) const {
        UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
        REQUIRE(fd);
        auto safe = husk::binary_is_safe_from(fd.get(), caller, ranges);
        REQUIRE(safe);
        return *safe;
    }
};

}  // namespace

TEST_CASE("binary_is_safe_from: another owner and no write bit for others is safe; the caller's own file is not",
          "[base][readonly-self]") {
    TempFile file;
    REQUIRE(::chown(file.path.c_str(), 0, 0) == 0);  // the tests run as root
    REQUIRE(::chmod(file.path.c_str(), 0755) == 0);
    CHECK(file.safe_from(4242));
    // The caller's own binary: its containers' root is the caller.
    CHECK_FALSE(file.safe_from(0));
    // Owned by one of the caller's subordinate ids: a container holds that id.
    REQUIRE(::chown(file.path.c_str(), 100005, 0) == 0);
    CHECK_FALSE(file.safe_from(4242, {IdRange{100000, 65536}}));
    CHECK(file.safe_from(4242, {IdRange{200000, 65536}}));
    // Group or other write bits: whoever holds that group, or anyone.
    REQUIRE(::chown(file.path.c_str(), 0, 0) == 0);
    REQUIRE(::chmod(file.path.c_str(), 0775) == 0);
    CHECK_FALSE(file.safe_from(4242));
    REQUIRE(::chmod(file.path.c_str(), 0757) == 0);
    CHECK_FALSE(file.safe_from(4242));
    // An ACL naming a user.
    REQUIRE(::chmod(file.path.c_str(), 0755) == 0);
    if (std::system(("setfacl -m u:4242:rwx " + file.path + " 2>/dev/null").c_str()) == 0) CHECK_FALSE(file.safe_from(4242));
}
