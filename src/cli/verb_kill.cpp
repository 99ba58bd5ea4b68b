#include <csignal>

#include "cli/cli.hpp"
#include "base/signal_names.hpp"

namespace husk::cli {

int verb_kill(const Globals& globals, const Args& args) {
    static constexpr Option all{"all", 'a', Takes::nothing,
                                "signal every process in the container's cgroup, not just init"};
    OptionValues values;
    int status = 0;
    if (!parse_verb("kill", "[--all] ID [SIGNAL]  (default SIGTERM; names with or without SIG, or numbers)",
                    OptionSet().add(all), {"id", "signal"}, args, values, &status))
        return status;
    if (!values.has("id")) {
        say("husk: kill: a container id is required\n");
        return 2;
    }
    auto id = checked_id(globals, "kill", values.text("id"));
    if (!id) return 1;
    int signal = SIGTERM;
    if (values.has("signal")) {
        auto parsed = parse_signal(values.text("signal"));
        if (!parsed) return report(globals, "kill " + id->str(), parsed.error());
        signal = *parsed;
    }
    if (auto r = kill_container(globals.runtime, *id, signal, values.has("all")); !r)
        return report(globals, "kill " + id->str(), r.error());
    return 0;
}

}  // namespace husk::cli
