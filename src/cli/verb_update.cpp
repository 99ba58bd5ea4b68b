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
    po::options_description options;
    options.add_options()("resources,r", po::value<std::string>(),
                          "a linux.resources JSON object from this file, or '-' for standard input; "
                          "the flags below override its fields");
    for (const UpdateFlagInfo& flag : update_flags()) options.add_options()(flag.name, po::value<std::string>(), flag.help);
    po::positional_options_description positional;
    positional.add("id", 1);
    po::variables_map vm;
    int status = 0;
    if (!parse_verb("update", "[--resources FILE|-] [flags] ID", options, positional, args, vm, &status))
        return status;
    if (!vm.count("id")) {
        say("husk: update: a container id is required\n");
        return 2;
    }
    auto checked = checked_id(globals, "update", vm["id"].as<std::string>());
    if (!checked) return 1;
    const std::string& id = checked->str();
    spec::Resources resources;
    if (vm.count("resources")) {
        auto read = read_resources(vm["resources"].as<std::string>());
        if (!read) return report(globals, "update " + id, read.error());
        resources = std::move(*read);
    }
    std::vector<UpdateFlag> flags;
    for (const UpdateFlagInfo& flag : update_flags())
        if (vm.count(flag.name)) flags.push_back({flag.name, vm[flag.name].as<std::string>()});
    if (auto r = apply_update_flags(flags, resources); !r) return report(globals, "update " + id, r.error());
    if (auto r = update_container(globals.runtime, *checked, resources); !r) return report(globals, "update " + id, r.error());
    return 0;
}

}  // namespace husk::cli
