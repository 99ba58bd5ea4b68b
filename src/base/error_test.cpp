#include "husk/error.hpp"

#include <catch2/catch.hpp>
#include <cerrno>
#include <string>

using husk::Error;

TEST_CASE("a system error names the operation, the quoted subject and the lower-case errno text", "[base]") {
    Error e = Error::sys(ENOENT, "rootfs", "/x/rootfs");
    CHECK(e.message() == "rootfs \"/x/rootfs\": no such file or directory");
}

TEST_CASE("context prefixes the message once", "[base]") {
    Error e = Error::msg("container does not exist");
    e.context("state c1");
    CHECK(e.message() == "state c1: container does not exist");
}

TEST_CASE("the kind survives context, so callers never need to read the text", "[base]") {
    Error e = Error::msg("container does not exist", husk::ErrorKind::not_found);
    e.context("delete c1");
    CHECK(e.kind == husk::ErrorKind::not_found);
    CHECK(e.err == 0);
    CHECK(Error::msg("container does not exist").kind == husk::ErrorKind::unspecified);
    CHECK(Error::sys(ENOENT, "open", "/x").kind == husk::ErrorKind::unspecified);
}

TEST_CASE("an over-long message is truncated, never overflowed", "[base]") {
    std::string long_subject(2000, 'x');
    Error e = Error::sys(EPERM, "open", long_subject);
    CHECK(std::string(e.what).size() == sizeof e.what - 1);
}

static husk::Result<int> half(int x) {
    if (x % 2 != 0) return husk::fail_msg("odd");
    return x / 2;
}

static husk::Result<int> quarter(int x) {
    int h = TRY(half(x));
    return TRY(half(h));
}

TEST_CASE("TRY passes values through and returns the first error", "[base]") {
    CHECK(quarter(8).value() == 2);
    CHECK(quarter(6).error().message() == "odd");
}
