#include <unistd.h>

#include <cstdio>

#include "base/fs.hpp"
#include "base/json_tree.hpp"
#include "cli/cli.hpp"
#include "cli/update_flags.hpp"
#include "spec/parse.hpp"

namespace husk::cli {
namespace {

// --resources FILE, or "-" for standard input (containerd's shim pipes the JSON in).
Result<spec::Resources> read_resources(const std::string& source) {
    // Bounded like every JSON husk reads; standard input may be a pipe, a named file must be a regular one.
    auto text = source == "-" ? read_fd(STDIN_FILENO, max_json_bytes) : read_file(source, max_json_bytes);
    if (!text) {
        Error e = text.error();
        return std::unexpected(e.context("--resources " + source));
    }
    auto resources = spec::parse_resources_config(*text);
    if (!resources) {
        Error e = resources.error();
        return std::unexpected(e.context("--resources " + source));
    }
    return resources;
}

}  // namespace

int verb_update(const Globals& globals, const Args& args) {
    static constexpr Option resources_flag{"resources", 'r', Takes::text,
                                           "a linux.resources JSON object from this file, or '-' for standard input; "
                                           "the flags below override its fields"};
    OptionSet options;
    options.add(resources_flag);
    for (const UpdateFlagInfo& flag : update_flags()) options.add(Option{flag.name, 0, Takes::text, flag.help});
    OptionValues values;
    int status = 0;
    if (!parse_verb("update", "[--resources FILE|-] [flags] ID", options, {"id"}, args, values, &status)) return status;
    if (!values.has("id")) {
        say("husk: update: a container id is required\n");
        return 2;
    }
    auto checked = checked_id(globals, "update", values.text("id"));
    if (!checked) return 1;
    const std::string& id = checked->str();
    spec::Resources resources;
    if (values.has("resources")) {
        auto read = read_resources(values.text("resources"));
        if (!read) return report(globals, "update " + id, read.error());
        resources = std::move(*read);
    }
    std::vector<UpdateFlag> flags;
    for (const UpdateFlagInfo& flag : update_flags())
        if (values.has(flag.name)) flags.push_back({flag.name, values.text(flag.name)});
    if (auto r = apply_update_flags(flags, resources); !r) return report(globals, "update " + id, r.error());
    if (auto r = update_container(globals.runtime, *checked, resources); !r) return report(globals, "update " + id, r.error());
    return 0;
}

}  // namespace husk::cli
