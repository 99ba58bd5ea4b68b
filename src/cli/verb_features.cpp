// Verbs that print a document of this build and take no arguments: features, seccomp-profile.
#include "cli/cli.hpp"

namespace husk::cli {
namespace {

int print_document(const char* verb, const Args& args, std::string (*document)()) {
    OptionValues values;
    int status = 0;
    if (!parse_verb(verb, "", OptionSet(), {}, args, values, &status)) return status;
    std::printf("%s\n", document().c_str());
    return 0;
}

}  // namespace

int verb_features(const Globals&, const Args& args) { return print_document("features", args, features_json); }

int verb_seccomp_profile(const Globals&, const Args& args) {
    return print_document("seccomp-profile", args, [] { return default_seccomp_profile_json(); });
}

}  // namespace husk::cli
