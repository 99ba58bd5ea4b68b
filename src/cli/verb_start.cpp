#include "cli/verb_simple.hpp"

namespace husk::cli {

std::optional<ContainerId> parse_id_only(const Globals& globals, const char* verb, const Args& args, int* status) {
    OptionValues values;
    if (!parse_verb(verb, "ID", OptionSet(), {"id"}, args, values, status)) return std::nullopt;
    if (!values.has("id")) {
        say("husk: %s: a container id is required\n", verb);
        *status = 2;
        return std::nullopt;
    }
    auto id = checked_id(globals, verb, values.text("id"));
    if (!id) *status = 1;
    return id;
}

int verb_start(const Globals& globals, const Args& args) {
    int status = 0;
    auto id = parse_id_only(globals, "start", args, &status);
    if (!id) return status;
    auto warnings = start_container(globals.runtime, *id);
    if (!warnings) return report(globals, "start " + id->str(), warnings.error());
    for (const auto& warning : *warnings) warn(globals, "start " + id->str() + ": " + warning);
    return 0;
}

int verb_state(const Globals& globals, const Args& args) {
    int status = 0;
    auto id = parse_id_only(globals, "state", args, &status);
    if (!id) return status;
    auto json = container_state_json(globals.runtime, *id);
    if (!json) return report(globals, "state " + id->str(), json.error());
    std::printf("%s\n", json->c_str());
    return 0;
}

}  // namespace husk::cli
