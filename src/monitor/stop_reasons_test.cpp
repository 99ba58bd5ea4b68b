#include "monitor/stop_reasons.hpp"

#include <catch2/catch.hpp>

#include <set>
#include <string>

using namespace husk::monitor;

TEST_CASE("each stop reason has one entry with a unique name, a doc line, and a distinct limit status",
          "[monitor]") {
    std::set<std::string_view> names;
    std::set<int> statuses;
    for (const StopReason& entry : stop_reasons()) {
        INFO(std::string(entry.name));
        CHECK(names.insert(entry.name).second);
        CHECK_FALSE(entry.doc.empty());
        CHECK(&stop_reason(entry.reason) == &entry);
        CHECK(find_stop_reason(entry.name) == &entry);
        if (entry.limit_status == 0) continue;
        // A limit is announced on the event stream when its cause is recorded, under its own name.
        CHECK(entry.event == entry.name);
        CHECK(statuses.insert(entry.limit_status).second);
        CHECK(entry.limit_status > 2);
        CHECK(entry.limit_status < 125);
    }
    CHECK(find_stop_reason("no-such-reason") == nullptr);
}

TEST_CASE("the stop reasons' names are the strings state.json and husk events have always carried", "[monitor]") {
    CHECK(reason_name(Reason::exited) == "exited");
    CHECK(reason_name(Reason::signaled) == "signaled");
    CHECK(reason_name(Reason::killed) == "killed");
    CHECK(reason_name(Reason::timeout) == "timeout");
    CHECK(reason_name(Reason::cpu_limit) == "cpu-limit");
    CHECK(reason_name(Reason::output_limit) == "output-limit");
    CHECK(reason_name(Reason::oom) == "oom");
    CHECK(reason_name(Reason::setup_failed) == "setup-failed");
    CHECK(reason_name(Reason::unknown) == "unknown");
    CHECK(reason_name(Reason::refused) == "refused");
    CHECK(stop_reason(Reason::timeout).limit_status == 124);
    CHECK(stop_reason(Reason::cpu_limit).limit_status == 123);
    CHECK(stop_reason(Reason::output_limit).limit_status == 122);
    CHECK(reason_name(Reason::network_limit) == "network-limit");
    CHECK(stop_reason(Reason::network_limit).limit_status == 121);
}
