#include "base/signal_names.hpp"

#include <catch2/catch.hpp>
#include <csignal>

using husk::parse_signal;

TEST_CASE("signals are accepted by name with or without SIG, and by number", "[base]") {
    CHECK(parse_signal("TERM").value() == SIGTERM);
    CHECK(parse_signal("SIGKILL").value() == SIGKILL);
    CHECK(parse_signal("15").value() == 15);
    CHECK(parse_signal("9").value() == SIGKILL);
    CHECK(parse_signal("WINCH").value() == SIGWINCH);
    CHECK(parse_signal("RTMIN+2").value() == SIGRTMIN + 2);
    CHECK(parse_signal("SIGRTMAX-1").value() == SIGRTMAX - 1);
}

TEST_CASE("unknown signals are errors that quote the input", "[base]") {
    CHECK(parse_signal("FOO").error().message() == "unknown signal \"FOO\"");
    CHECK_FALSE(parse_signal("0"));
    CHECK_FALSE(parse_signal("65"));
    CHECK_FALSE(parse_signal("-9"));
    CHECK_FALSE(parse_signal(""));
    CHECK_FALSE(parse_signal("RTMIN+99"));
    CHECK_FALSE(parse_signal("sigterm"));
}

TEST_CASE("a signal is named as parse_signal reads it back", "[base]") {
    CHECK(husk::signal_name(SIGTERM) == "SIGTERM");
    CHECK(husk::signal_name(SIGIO) == "SIGIO");
    CHECK(husk::signal_name(SIGRTMIN + 3) == "SIGRTMIN+3");
    for (int signal = 1; signal <= SIGRTMAX; ++signal) {
        INFO(signal);
        CHECK(parse_signal(husk::signal_name(signal)).value() == signal);
    }
}
