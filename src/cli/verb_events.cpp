#include <chrono>
#include <cstdio>

#include "cli/cli.hpp"
#include "base/duration.hpp"

namespace husk::cli {

int verb_events(const Globals& globals, const Args& args) {
    static constexpr Option flags[] = {
        {"stats", 0, Takes::nothing, "print the container's counters once and exit"},
        {"interval", 0, Takes::text, "time between stats events (500ms, 5s, 1m); OOM events are printed as they happen",
         "5s"},
    };
    OptionValues values;
    int status = 0;
    if (!parse_verb("events", "[--stats] [--interval DURATION] ID", OptionSet().add(flags), {"id"}, args, values,
                    &status))
        return status;
    if (!values.has("id")) {
        say("husk: events: a container id is required\n");
        return 2;
    }
    auto checked = checked_id(globals, "events", values.text("id"));
    if (!checked) return 1;
    const std::string& id = checked->str();
    auto interval = parse_duration(values.text("interval"));
    if (!interval) return report(globals, "events " + id, interval.error().context("--interval"));
    auto ms = std::chrono::ceil<std::chrono::milliseconds>(*interval);
    if (ms.count() <= 0) return report(globals, "events " + id, Error::msg("--interval must be greater than 0"));
    if (values.has("stats")) {
        auto line = container_stats_event(globals.runtime, *checked);
        if (!line) return report(globals, "events " + id, line.error());
        std::printf("%s\n", line->c_str());
        return 0;
    }
    auto watched = watch_container_events(globals.runtime, *checked, ms, [](const std::string& line) {
        // One line per event, flushed: clients read the stream as it comes.
        std::printf("%s\n", line.c_str());
        std::fflush(stdout);
    });
    if (!watched) return report(globals, "events " + id, watched.error());
    return 0;
}

}  // namespace husk::cli
