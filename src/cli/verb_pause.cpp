#include "cli/verb_simple.hpp"

namespace husk::cli {

int verb_pause(const Globals& globals, const Args& args) {
    int status = 0;
    auto id = parse_id_only(globals, "pause", args, &status);
    if (!id) return status;
    if (auto r = pause_container(globals.runtime, *id); !r) return report(globals, "pause " + id->str(), r.error());
    return 0;
}

int verb_resume(const Globals& globals, const Args& args) {
    int status = 0;
    auto id = parse_id_only(globals, "resume", args, &status);
    if (!id) return status;
    if (auto r = resume_container(globals.runtime, *id); !r) return report(globals, "resume " + id->str(), r.error());
    return 0;
}

}  // namespace husk::cli
