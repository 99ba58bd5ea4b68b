#include "base/trace.hpp"

#include <catch2/catch.hpp>
#include <unistd.h>

#include <cstdio>
#include <regex>
#include <string>

using namespace husk;

namespace {

// What the marks made while `body` ran wrote to fd 2.
template <typename F>
std::string captured_stderr(F body) {
    int pipe_fds[2];
    REQUIRE(::pipe(pipe_fds) == 0);
    int saved = ::dup(2);
    REQUIRE(::dup2(pipe_fds[1], 2) == 2);
    body();
    ::dup2(saved, 2);
    ::close(saved);
    ::close(pipe_fds[1]);
    std::string text;
    char buffer[512];
    for (ssize_t n; (n = ::read(pipe_fds[0], buffer, sizeof buffer)) > 0;) text.append(buffer, static_cast<std::size_t>(n));
    ::close(pipe_fds[0]);
    return text;
}

}  // namespace

TEST_CASE("trace marks write one line each only with HUSK_TRACE=1", "[base]") {
    char off_value[] = "HUSK_TRACE=0";
    char on_value[] = "HUSK_TRACE=1";
    char other[] = "PATH=/bin";
    char* off_env[] = {other, off_value, nullptr};
    char* on_env[] = {other, on_value, nullptr};

    trace::start(off_env);
    CHECK_FALSE(trace::enabled());
    CHECK(captured_stderr([] { trace::mark("nothing"); }).empty());

    trace::start(on_env);
    CHECK(trace::enabled());
    std::string text = captured_stderr([] {
        trace::mark("state dir");
        trace::mark("init: go", 1);
    });
    trace::start(off_env);
    std::regex line("husk-trace [0-9]+\\.[0-9]{6} " + std::to_string(::getpid()) +
                    " state dir\nhusk-trace [0-9]+\\.[0-9]{6} 1 init: go\n");
    INFO(text);
    CHECK(std::regex_match(text, line));
}
