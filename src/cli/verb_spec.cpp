#include <fcntl.h>
#include <unistd.h>

#include "base/fs.hpp"
#include "cli/cli.hpp"
#include "spec/default_spec.hpp"

namespace husk::cli {

int verb_spec(const Globals& globals, const Args& args) {
    static constexpr Option flags[] = {
        {"bundle", 'b', Takes::text, "where to write config.json", "."},
        {"rootless", 0, Takes::nothing, "a config for husk without root: the caller's uid and gid mapped as root, no "
                                        "network namespace, no linux.resources (as runc spec --rootless; "
                                        "docs/rootless.md)"},
    };
    OptionValues values;
    int status = 0;
    if (!parse_verb("spec", "[--bundle DIR] [--rootless]", OptionSet().add(flags), {}, args, values, &status))
        return status;
    std::string path = values.text("bundle") + "/config.json";
    // Like runc: never overwrite an existing config.
    auto fd = open_fd(path, O_WRONLY | O_CREAT | O_EXCL, 0644);
    if (!fd) {
        if (fd.error().err == EEXIST) return report(globals, "spec", Error::msg("File " + path + " exists. Remove it first"));
        return report(globals, "spec", fd.error());
    }
    const std::string text =
        values.has("rootless") ? spec::rootless_spec_json(::geteuid(), ::getegid()) : spec::default_spec_json();
    if (auto r = write_all(fd->get(), text + "\n"); !r) return report(globals, "spec", r.error());
    return 0;
}

}  // namespace husk::cli
