#include <csignal>

#include "cli/cli.hpp"
#include "base/signal_names.hpp"

namespace husk::cli {

int verb_kill(const Globals& globals, const Args& args) {
    po::options_description options;
    options.add_options()("all,a", "signal every process in the container's cgroup, not just init");
    po::positional_options_description positional;
    positional.add("id", 1).add("signal", 1);
    po::variables_map vm;
    int status = 0;
    if (!parse_verb("kill", "[--all] ID [SIGNAL]  (default SIGTERM; names with or without SIG, or numbers)",
                    options, positional, args, vm, &status))
        return status;
    if (!vm.count("id")) {
        say("husk: kill: a container id is required\n");
        return 2;
    }
    auto id = checked_id(globals, "kill", vm["id"].as<std::string>());
    if (!id) return 1;
    int signal = SIGTERM;
    if (vm.count("signal")) {
        auto parsed = parse_signal(vm["signal"].as<std::string>());
        if (!parsed) return report(globals, "kill " + id->str(), parsed.error());
        signal = *parsed;
    }
    if (auto r = kill_container(globals.runtime, *id, signal, vm.count("all") > 0); !r)
        return report(globals, "kill " + id->str(), r.error());
    return 0;
}

}  // namespace husk::cli
