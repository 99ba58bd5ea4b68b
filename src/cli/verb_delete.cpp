#include "cli/cli.hpp"

namespace husk::cli {

int verb_delete(const Globals& globals, const Args& args) {
    po::options_description options;
    options.add_options()("force,f", "kill the container if it is still running; an unknown id is not an error");
    po::positional_options_description positional;
    positional.add("id", 1);
    po::variables_map vm;
    int status = 0;
    if (!parse_verb("delete", "[--force] ID", options, positional, args, vm, &status)) return status;
    if (!vm.count("id")) {
        std::fprintf(stderr, "husk: delete: a container id is required\n");
        return 2;
    }
    std::string id = vm["id"].as<std::string>();
    auto warnings = delete_container(globals.runtime, id, vm.count("force") > 0);
    if (!warnings) return report(globals, "delete " + id, warnings.error());
    for (const auto& warning : *warnings) warn(globals, "delete " + id + ": " + warning);
    return 0;
}

}  // namespace husk::cli
