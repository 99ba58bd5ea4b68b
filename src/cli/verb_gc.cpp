#include "cli/cli.hpp"

namespace husk::cli {

int verb_gc(const Globals& globals, const Args& args) {
    OptionValues values;
    int status = 0;
    if (!parse_verb("gc", "", OptionSet(), {}, args, values, &status)) return status;
    GcOutcome outcome = gc_containers(globals.runtime);
    for (const auto& id : outcome.deleted) std::printf("%s\n", id.str().c_str());
    for (const auto& error : outcome.errors) status = report(globals, "", error);
    return status;
}

}  // namespace husk::cli
