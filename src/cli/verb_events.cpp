#include <chrono>
#include <cstdio>

#include "cli/cli.hpp"
#include "base/duration.hpp"

namespace husk::cli {

int verb_events(const Globals& globals, const Args& args) {
    po::options_description options;
    options.add_options()
        ("stats", "print the container's counters once and exit")
        ("interval", po::value<std::string>()->default_value("5s"),
         "time between stats events (500ms, 5s, 1m); OOM events are printed as they happen");
    po::positional_options_description positional;
    positional.add("id", 1);
    po::variables_map vm;
    int status = 0;
    if (!parse_verb("events", "[--stats] [--interval DURATION] ID", options, positional, args, vm, &status))
        return status;
    if (!vm.count("id")) {
        say("husk: events: a container id is required\n");
        return 2;
    }
    auto checked = checked_id(globals, "events", vm["id"].as<std::string>());
    if (!checked) return 1;
    const std::string& id = checked->str();
    auto interval = parse_duration(vm["interval"].as<std::string>());
    if (!interval) return report(globals, "events " + id, interval.error().context("--interval"));
    auto ms = std::chrono::ceil<std::chrono::milliseconds>(*interval);
    if (ms.count() <= 0) return report(globals, "events " + id, Error::msg("--interval must be greater than 0"));
    if (vm.count("stats")) {
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
