#include "base/dir.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <string>

#include "husk/unique_fd.hpp"

TEST_CASE("list_dir gives the entries with their types, without . and ..", "[base]") {
    char dir[] = "/tmp/husk-dir-test-XXXXXX";
    REQUIRE(mkdtemp(dir) != nullptr);
    std::string path = dir;
    REQUIRE(mkdir((path + "/sub").c_str(), 0700) == 0);
    husk::UniqueFd file(open((path + "/file").c_str(), O_CREAT | O_WRONLY | O_CLOEXEC, 0600));
    REQUIRE(file);

    auto entries = husk::list_dir(path).value();
    std::sort(entries.begin(), entries.end(), [](const auto& a, const auto& b) { return a.name < b.name; });
    REQUIRE(entries.size() == 2);
    CHECK(entries[0].name == "file");
    CHECK(entries[1].name == "sub");
    CHECK(entries[1].type == DT_DIR);

    husk::UniqueFd dirfd(open(dir, O_DIRECTORY | O_RDONLY | O_CLOEXEC));
    CHECK(husk::list_dir_at(dirfd.get(), path).value().size() == 2);
    CHECK(husk::list_dir_at(dirfd.get(), path).value().size() == 2);  // dirfd's offset is not consumed

    unlink((path + "/file").c_str());
    rmdir((path + "/sub").c_str());
    rmdir(dir);
}

TEST_CASE("list_dir of a missing directory reports open and the path", "[base]") {
    auto entries = husk::list_dir("/nonexistent/husk");
    REQUIRE_FALSE(entries);
    CHECK(entries.error().message() == "open \"/nonexistent/husk\": no such file or directory");
}
