#include "container/bundle.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdlib>

#include "base/fs.hpp"
#include "base/json_tree.hpp"
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

Result<Bundle> load_bundle(const CreateOptions& options) {
    Bundle bundle;
    // Paths come from --bundle, never from the cwd (conmon runs us from podman's cwd).
    std::string dir = options.bundle;
    if (dir.empty()) {
        char cwd[PATH_MAX];
        if (::getcwd(cwd, sizeof cwd) == nullptr) return fail_sys(errno, "getcwd");
        dir = cwd;
    }
    bundle.dir = TRY(absolute_directory(dir, "bundle"));
    // An in-memory config is named so in errors, where a file would be named by its path.
    std::string config_path = "the in-memory config";
    if (options.config_text) {
        bundle.config_text = *options.config_text;  // parse_config bounds it as read_file does a file
    } else {
        config_path = relative_to(bundle.dir, options.config.empty() ? "config.json" : options.config);
        bundle.config_text = TRY(read_file(config_path, max_json_bytes));
    }
    auto spec = spec::parse_config(bundle.config_text);
    if (!spec) return fail(spec.error().context(config_path));
    if (options.warn)
        for (const std::string& ignored : spec->ignored) options.warn(config_path + ": " + ignored);
    // --timeout & co. set husk's annotations and win over config.json's (docs/husk.8.md, "LIMITS").
    for (const auto& [key, value] : options.annotations) spec->annotations[key] = value;
    bundle.husk = TRY(spec::validate(*spec));
    bundle.spec = std::move(*spec);
    bundle.rootfs = TRY(absolute_directory(relative_to(bundle.dir, bundle.spec.root.path), "rootfs"));
    return bundle;
}

}  // namespace husk::container
