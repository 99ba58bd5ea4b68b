#include "base/procfs.hpp"

#include <catch2/catch.hpp>

#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <string>

TEST_CASE("a process's /proc/PID is opened through a verified procfs and written beneath it", "[base]") {
    auto dir = husk::open_proc_pid(getpid());
    REQUIRE(dir);
    std::string current;
    std::ifstream("/proc/self/oom_score_adj") >> current;
    CHECK(husk::write_proc_file(dir->get(), "oom_score_adj", current));
    // A name reaching out of PID's directory is refused (RESOLVE_BENEATH).
    CHECK_FALSE(husk::write_proc_file(dir->get(), "../self/oom_score_adj", current));
}

TEST_CASE("a /proc that is not procfs is refused", "[base]") {
    char tmpl[] = "/tmp/husk-procfs.XXXXXX";
    REQUIRE(mkdtemp(tmpl) != nullptr);
    std::string pid_dir = std::string(tmpl) + "/" + std::to_string(getpid());
    REQUIRE(mkdir(pid_dir.c_str(), 0755) == 0);
    auto dir = husk::open_proc_pid(getpid(), tmpl);
    rmdir(pid_dir.c_str());
    rmdir(tmpl);
    REQUIRE_FALSE(dir);
    CHECK(dir.error().message().find("not procfs") != std::string::npos);
}
