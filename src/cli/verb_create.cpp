#include "cli/cli.hpp"
#include "cli/create_options.hpp"

namespace husk::cli {

int verb_create(const Globals& globals, const Args& args) {
    const OptionSet options = create_options();
    OptionValues values;
    int status = 0;
    if (!parse_verb("create", "[options] ID", options, {"id"}, args, values, &status)) return status;
    auto read = read_create_options(values);
    if (!read) {
        say("husk: create: %s\n", read.error().message().c_str());
        return 2;
    }
    CreateOptions create = std::move(*read);
    if (values.text("id").empty()) {
        say("husk: create: a container id is required\n");
        return 2;
    }
    auto id = checked_id(globals, "create", values.text("id"));
    if (!id) return 1;
    const std::string context = "create " + id->str();
    create.warn = [&](const std::string& message) { warn(globals, context + ": " + message); };
    if (auto r = create_container(globals.runtime, *id, create); !r) return report(globals, context, r.error());
    return 0;
}

}  // namespace husk::cli
