#include "cli/verb_simple.hpp"

namespace husk::cli {

bool parse_id_only(const char* verb, const Args& args, std::string& id, int* status) {
    po::options_description none;
    po::positional_options_description positional;
    positional.add("id", 1);
    po::variables_map vm;
    if (!parse_verb(verb, "ID", none, positional, args, vm, status)) return false;
    if (!vm.count("id")) {
        say("husk: %s: a container id is required\n", verb);
        *status = 2;
        return false;
    }
    id = vm["id"].as<std::string>();
    return true;
}

int verb_start(const Globals& globals, const Args& args) {
    std::string id;
    int status = 0;
    if (!parse_id_only("start", args, id, &status)) return status;
    auto warnings = start_container(globals.runtime, id);
    if (!warnings) return report(globals, "start " + id, warnings.error());
    for (const auto& warning : *warnings) warn(globals, "start " + id + ": " + warning);
    return 0;
}

int verb_state(const Globals& globals, const Args& args) {
    std::string id;
    int status = 0;
    if (!parse_id_only("state", args, id, &status)) return status;
    auto json = container_state_json(globals.runtime, id);
    if (!json) return report(globals, "state " + id, json.error());
    std::printf("%s\n", json->c_str());
    return 0;
}

}  // namespace husk::cli
