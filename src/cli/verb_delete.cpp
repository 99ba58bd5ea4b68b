#include "cli/cli.hpp"

namespace husk::cli {

int verb_delete(const Globals& globals, const Args& args) {
    static constexpr Option flags[] = {
        {"force", 'f', Takes::nothing, "kill the container if it is still running; an unknown id is not an error"},
        {"print-state", 0, Takes::nothing, "print the container's final state (husk state's JSON, husk.exit with the "
                                           "verdict) as delete saw it, once its monitor recorded the exit"},
    };
    OptionValues values;
    int status = 0;
    if (!parse_verb("delete", "[--force] [--print-state] ID", OptionSet().add(flags), {"id"}, args, values, &status))
        return status;
    if (!values.has("id")) {
        say("husk: delete: a container id is required\n");
        return 2;
    }
    auto checked = checked_id(globals, "delete", values.text("id"));
    if (!checked) return 1;
    const std::string& id = checked->str();
    std::string final_state;
    auto warnings = delete_container(globals.runtime, *checked, values.has("force"),
                                     values.has("print-state") ? &final_state : nullptr);
    // Printed also when the delete failed after it had the record: a caller that cancels still gets the verdict.
    if (!final_state.empty()) std::printf("%s\n", final_state.c_str());
    if (!warnings) return report(globals, "delete " + id, warnings.error());
    for (const auto& warning : *warnings) warn(globals, "delete " + id + ": " + warning);
    return 0;
}

}  // namespace husk::cli
