#include "cli/cli.hpp"
#include "cli/create_options.hpp"

namespace husk::cli {

int verb_create(const Globals& globals, const Args& args) {
    po::options_description options = create_options_description();
    po::positional_options_description positional;
    positional.add("id", 1);
    po::variables_map vm;
    int status = 0;
    if (!parse_verb("create", "[options] ID", options, positional, args, vm, &status)) return status;
    auto read = read_create_options(vm);
    if (!read) {
        say("husk: create: %s\n", read.error().message().c_str());
        return 2;
    }
    CreateOptions create = std::move(*read);
    if (!vm.count("id") || vm["id"].as<std::string>().empty()) {
        say("husk: create: a container id is required\n");
        return 2;
    }
    auto id = checked_id(globals, "create", vm["id"].as<std::string>());
    if (!id) return 1;
    const std::string context = "create " + id->str();
    create.warn = [&](const std::string& message) { warn(globals, context + ": " + message); };
    if (auto r = create_container(globals.runtime, *id, create); !r) return report(globals, context, r.error());
    return 0;
}

}  // namespace husk::cli
