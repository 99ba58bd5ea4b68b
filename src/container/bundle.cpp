#include "container/bundle.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdlib>

#include "base/fs.hpp"
#include "base/json_tree.hpp"
#include "spec/config_writer.hpp"
#include "spec/parse.hpp"
#include "spec/validate.hpp"

namespace husk::container {
namespace {

std::string relative_to(const std::string& base, const std::string& path) {
    return !path.empty() && path[0] == '/' ? path : base + "/" + path;
}

}  // namespace

Result<std::string> absolute_directory(const std::string& path, const char* what) {
    char resolved[PATH_MAX];
    if (::realpath(path.c_str(), resolved) == nullptr) return fail_sys(errno, what, path);
    struct stat st {};
    if (::stat(resolved, &st) != 0) return fail_sys(errno, what, path);
    if (!S_ISDIR(st.st_mode)) return fail_sys(ENOTDIR, what, path);
    return std::string(resolved);
}

Result<Bundle> load_bundle(const ContainerId& id, const CreateOptions& options) {
    // Paths come from --bundle, never from the cwd (conmon runs us from podman's cwd).
    std::string dir = options.bundle;
    if (dir.empty()) {
        char cwd[PATH_MAX];
        if (::getcwd(cwd, sizeof cwd) == nullptr) return fail_sys(errno, "getcwd");
        dir = cwd;
    }
    dir = TRY(absolute_directory(dir, "bundle"));
    // An in-memory config is named so in errors, where a file would be named by its path.
    std::string config_path = "the in-memory config";
    std::string text;
    if (options.config_text) {
        text = *options.config_text;  // parse_config bounds it as read_file does a file
    } else {
        config_path = relative_to(dir, options.config.empty() ? "config.json" : options.config);
        text = TRY(read_file(config_path, max_json_bytes));
    }
    auto tree = parse_json_tree(text);
    if (!tree) return fail(tree.error().context(config_path));
    auto spec = spec::parse_config(*tree);
    if (!spec) return fail(spec.error().context(config_path));
    if (options.warn)
        for (const std::string& ignored : spec->ignored) options.warn(config_path + ": " + ignored);
    // The command line's settings win over config.json's annotations, and all are checked together, once.
    spec::HuskSettings husk = TRY(spec::validate(*spec, options.overrides));
    std::string rootfs = TRY(absolute_directory(relative_to(dir, spec->root.path), "rootfs"));
    return Bundle{std::move(dir), std::move(rootfs), std::move(text), std::move(*tree),
                  ContainerConfig{id, std::move(*spec), std::move(husk), std::nullopt}};
}

Result<std::string> settle_config(Bundle& bundle) {
    spec::Spec& spec = bundle.config.spec;
    auto settled = spec::annotations_of(spec.annotations, bundle.config.husk);
    if (settled == spec.annotations) return bundle.config_text;
    spec.annotations = std::move(settled);
    return spec::config_with_annotations(bundle.config_tree, spec.annotations);
}

}  // namespace husk::container
