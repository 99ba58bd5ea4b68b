#include "base/json_writer.hpp"
#include "cli/cli.hpp"

namespace husk::cli {

int verb_list(const Globals& globals, const Args& args) {
    static constexpr Option flags[] = {
        {"quiet", 'q', Takes::nothing, "print only the ids"},
        {"format", 0, Takes::text, "table or json", "table"},
    };
    OptionValues values;
    int status = 0;
    if (!parse_verb("list", "[-q] [--format table|json]", OptionSet().add(flags), {}, args, values, &status))
        return status;
    std::string format = values.text("format");
    if (format != "table" && format != "json") {
        say("husk: list: --format must be table or json\n");
        return 2;
    }
    if (values.has("quiet")) {
        for (const auto& id : list_container_ids(globals.runtime)) std::printf("%s\n", id.str().c_str());
        return 0;
    }
    auto containers = list_containers(globals.runtime);
    if (format == "json") {
        JsonWriter w;
        w.begin_array();
        for (const auto& c : containers) {
            w.begin_object().key("ociVersion").string("1.3.0").key("id").string(c.id.str()).key("pid").integer(c.pid);
            w.key("status").string(c.status).key("bundle").string(c.bundle).key("created").string(c.created);
            w.key("owner").string(c.owner).end_object();
        }
        w.end_array();
        std::printf("%s\n", w.str().c_str());
        return 0;
    }
    std::printf("%-20s %-8s %-10s %-40s %-32s %s\n", "ID", "PID", "STATUS", "BUNDLE", "CREATED", "OWNER");
    for (const auto& c : containers)
        std::printf("%-20s %-8d %-10s %-40s %-32s %s\n", c.id.str().c_str(), c.pid, c.status.c_str(), c.bundle.c_str(),
                    c.created.c_str(), c.owner.c_str());
    return 0;
}

}  // namespace husk::cli
