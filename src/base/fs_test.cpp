#include "base/fs.hpp"

#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdlib>
#include <string>

TEST_CASE("write_file_atomic replaces content and leaves no temporary file", "[base]") {
    char dir[] = "/tmp/husk-fs-test-XXXXXX";
    REQUIRE(mkdtemp(dir) != nullptr);
    int dirfd = open(dir, O_DIRECTORY | O_CLOEXEC);
    REQUIRE(dirfd >= 0);
    REQUIRE(husk::write_file_atomic(dirfd, "state.json", "one"));
    REQUIRE(husk::write_file_atomic(dirfd, "state.json", "two"));
    CHECK(husk::read_file(std::string(dir) + "/state.json").value() == "two");
    CHECK(rmdir(dir) != 0);  // not empty: state.json
    unlinkat(dirfd, "state.json", 0);
    close(dirfd);
    CHECK(rmdir(dir) == 0);  // and nothing else: no temporary file was left
}

TEST_CASE("write_file_atomic follows no symlink planted at the old temporary name or at the name", "[base]") {
    char dir[] = "/tmp/husk-fs-test-XXXXXX";
    REQUIRE(mkdtemp(dir) != nullptr);
    const std::string victim = std::string(dir) + "/victim";
    int dirfd = open(dir, O_DIRECTORY | O_CLOEXEC);
    REQUIRE(dirfd >= 0);
    REQUIRE(husk::write_file_atomic(dirfd, "victim", "precious"));
    REQUIRE(symlinkat(victim.c_str(), dirfd, ".v.json.tmp") == 0);
    REQUIRE(symlinkat(victim.c_str(), dirfd, "w.json") == 0);
    REQUIRE(husk::write_file_atomic(dirfd, "v.json", "verdict"));
    REQUIRE(husk::write_file_atomic(dirfd, "w.json", "verdict"));
    CHECK(husk::read_file(victim).value() == "precious");
    CHECK(husk::read_file(std::string(dir) + "/w.json").value() == "verdict");  // the link replaced
    for (const char* name : {"victim", ".v.json.tmp", "v.json", "w.json"}) unlinkat(dirfd, name, 0);
    close(dirfd);
    CHECK(rmdir(dir) == 0);
}

TEST_CASE("read_file of a missing path reports open, the path and ENOENT", "[base]") {
    auto r = husk::read_file("/nonexistent/husk");
    REQUIRE_FALSE(r);
    CHECK(r.error().err == ENOENT);
    CHECK(r.error().message() == "open \"/nonexistent/husk\": no such file or directory");
}

namespace {

struct TempDir {
    std::string path;
    TempDir() {
        char name[] = "/tmp/husk-fs-test-XXXXXX";
        REQUIRE(mkdtemp(name) != nullptr);
        path = name;
    }
    ~TempDir() { std::system(("rm -rf '" + path + "'").c_str()); }
};

}  // namespace

TEST_CASE("read_file refuses a FIFO without blocking on its open", "[base]") {
    // Opening a FIFO for reading blocks until a writer comes; O_NONBLOCK returns at once and fstat refuses it.
    TempDir dir;
    std::string fifo = dir.path + "/config.json";
    REQUIRE(mkfifo(fifo.c_str(), 0600) == 0);
    auto r = husk::read_file(fifo);
    REQUIRE_FALSE(r);
    CHECK(r.error().message() == "read \"" + fifo + "\": is a FIFO, not a regular file");
}

TEST_CASE("read_file refuses a character device such as /dev/zero", "[base]") {
    auto r = husk::read_file("/dev/zero");
    REQUIRE_FALSE(r);
    CHECK(r.error().message() == "read \"/dev/zero\": is a character device, not a regular file");
}

TEST_CASE("read_file refuses a file larger than its limit and reads one of exactly the limit", "[base]") {
    TempDir dir;
    std::string file = dir.path + "/big";
    {
        husk::UniqueFd fd = husk::open_fd(file, O_WRONLY | O_CREAT, 0600).value();
        REQUIRE(husk::write_all(fd.get(), std::string(4097, 'x')));
    }
    CHECK(husk::read_file(file, 4097).value().size() == 4097);
    auto r = husk::read_file(file, 4096);
    REQUIRE_FALSE(r);
    CHECK(r.error().message() == "read \"" + file + "\": larger than husk reads (4096 bytes)");
}

TEST_CASE("read_file still reads procfs files, whose size is 0 to fstat", "[base]") {
    CHECK_FALSE(husk::read_file("/proc/self/mountinfo").value().empty());
}

TEST_CASE("read_fd reads a pipe to its end and refuses more than the limit", "[base]") {
    int fds[2];
    REQUIRE(pipe(fds) == 0);
    REQUIRE(write(fds[1], "0123456789", 10) == 10);
    close(fds[1]);
    auto r = husk::read_fd(fds[0], 9);
    close(fds[0]);
    REQUIRE_FALSE(r);
    CHECK(r.error().message() == "larger than husk reads (9 bytes)");
}

TEST_CASE("open_pipe gives two close-on-exec ends that are connected", "[base]") {
    auto pipe = husk::open_pipe().value();
    CHECK((fcntl(pipe.read_end.get(), F_GETFD) & FD_CLOEXEC) != 0);
    CHECK((fcntl(pipe.write_end.get(), F_GETFD) & FD_CLOEXEC) != 0);
    REQUIRE(write(pipe.write_end.get(), "x", 1) == 1);
    char c = 0;
    CHECK(read(pipe.read_end.get(), &c, 1) == 1);
    CHECK(c == 'x');
}

TEST_CASE("read_file reads whole files whatever size stat gives", "[base]") {
    TempDir dir;
    std::string file = dir.path + "/large";
    std::string text;
    for (int i = 0; text.size() < 100'000; ++i) text += std::to_string(i) + ",";
    {
        husk::UniqueFd fd = husk::open_fd(file, O_WRONLY | O_CREAT, 0600).value();
        REQUIRE(husk::write_all(fd.get(), text));
    }
    CHECK(husk::read_file(file).value() == text);
    // sysfs says 4096 for an attribute of a few bytes; procfs says 0.
    std::string seqnum = husk::read_file("/sys/kernel/uevent_seqnum").value();
    CHECK((seqnum.size() > 1 && seqnum.size() < 4096 && seqnum.ends_with("\n")));
    CHECK(husk::read_file("/proc/self/stat").value().ends_with("\n"));
}
