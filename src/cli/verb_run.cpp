#include "cli/cli.hpp"
#include "cli/create_options.hpp"

namespace husk::cli {

int verb_run(const Globals& globals, const Args& args) {
    po::options_description options = create_options_description();
    options.add_options()
        ("detach,d", "return once the container has started")
        ("keep", "keep the container's state after it stops (husk state still answers)");
    po::positional_options_description positional;
    positional.add("id", 1);
    po::variables_map vm;
    int status = 0;
    if (!parse_verb("run", "[options] ID", options, positional, args, vm, &status)) return status;
    RunOptions run;
    auto read = read_create_options(vm);
    if (!read) {
        std::fprintf(stderr, "husk: run: %s\n", read.error().message().c_str());
        return 2;
    }
    run.create = std::move(*read);
    if (run.create.id.empty()) {
        std::fprintf(stderr, "husk: run: a container id is required\n");
        return 2;
    }
    run.create.warn = [&](const std::string& message) { warn(globals, "run " + run.create.id + ": " + message); };
    run.detach = vm.count("detach") > 0;
    run.keep = vm.count("keep") > 0;
    auto result = run_container(globals.runtime, run);
    if (!result) return report(globals, "run " + run.create.id, result.error());
    for (const auto& warning : result->warnings) warn(globals, "run " + run.create.id + ": " + warning);
    if (!result->failure.empty()) report(globals, "run " + run.create.id, Error::msg(result->failure));
    return result->exit_code;
}

}  // namespace husk::cli
