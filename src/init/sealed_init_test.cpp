#include "init/sealed_init.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cerrno>
#include <string>

#include "init/image.hpp"

TEST_CASE("the sealed init is the embedded ELF image and cannot be changed or reopened for writing", "[init]") {
    auto fd = husk::init::open_sealed_init();
    REQUIRE(fd);
    struct stat st{};
    REQUIRE(::fstat(fd->get(), &st) == 0);
    CHECK(static_cast<std::size_t>(st.st_size) == husk::init::image_size);
    char magic[4]{};
    REQUIRE(::pread(fd->get(), magic, 4, 0) == 4);
    CHECK(std::string(magic, 4) == "\x7f" "ELF");
    int seals = ::fcntl(fd->get(), F_GET_SEALS);
    CHECK(seals == (F_SEAL_SEAL | F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE));
    errno = 0;
    CHECK(::pwrite(fd->get(), "x", 1, 0) == -1);
    CHECK(errno == EPERM);
    CHECK(::ftruncate(fd->get(), 0) == -1);
    // A path to the memfd (what /proc/1/exe is in the container) opens for reading, never for writing.
    std::string path = "/proc/self/fd/" + std::to_string(fd->get());
    int writable = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
    if (writable >= 0) {
        CHECK(::write(writable, "x", 1) == -1);
        ::close(writable);
    }
}
