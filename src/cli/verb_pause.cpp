#include "cli/verb_simple.hpp"

namespace husk::cli {

int verb_pause(const Globals& globals, const Args& args) {
    std::string id;
    int status = 0;
    if (!parse_id_only("pause", args, id, &status)) return status;
    if (auto r = pause_container(globals.runtime, id); !r) return report(globals, "pause " + id, r.error());
    return 0;
}

int verb_resume(const Globals& globals, const Args& args) {
    std::string id;
    int status = 0;
    if (!parse_id_only("resume", args, id, &status)) return status;
    if (auto r = resume_container(globals.runtime, id); !r) return report(globals, "resume " + id, r.error());
    return 0;
}

}  // namespace husk::cli
