#include "cli/cli.hpp"

namespace husk::cli {

int verb_delete(const Globals& globals, const Args& args) {
    po::options_description options;
    options.add_options()
        ("force,f", "kill the container if it is still running; an unknown id is not an error")
        ("print-state", "print the container's final state (husk state's JSON, husk.exit with the verdict) as delete "
                        "saw it, once its monitor recorded the exit");
    po::positional_options_description positional;
    positional.add("id", 1);
    po::variables_map vm;
    int status = 0;
    if (!parse_verb("delete", "[--force] [--print-state] ID", options, positional, args, vm, &status)) return status;
    if (!vm.count("id")) {
        say("husk: delete: a container id is required\n");
        return 2;
    }
    auto checked = checked_id(globals, "delete", vm["id"].as<std::string>());
    if (!checked) return 1;
    const std::string& id = checked->str();
    std::string final_state;
    auto warnings = delete_container(globals.runtime, *checked, vm.count("force") > 0,
                                     vm.count("print-state") ? &final_state : nullptr);
    // Printed also when the delete failed after it had the record: a caller that cancels still gets the verdict.
    if (!final_state.empty()) std::printf("%s\n", final_state.c_str());
    if (!warnings) return report(globals, "delete " + id, warnings.error());
    for (const auto& warning : *warnings) warn(globals, "delete " + id + ": " + warning);
    return 0;
}

}  // namespace husk::cli
