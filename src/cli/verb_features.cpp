#include "cli/cli.hpp"

namespace husk::cli {

int verb_features(const Globals&, const Args& args) {
    po::variables_map vm;
    int status = 0;
    if (!parse_verb("features", "", {}, {}, args, vm, &status)) return status;
    std::printf("%s\n", features_json().c_str());
    return 0;
}

}  // namespace husk::cli
