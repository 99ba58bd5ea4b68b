#include "container/config.hpp"

#include "base/fs.hpp"
#include "base/json_tree.hpp"
#include "spec/parse.hpp"
#include "spec/validate.hpp"

#include <memory>
#include <optional>
#include <string>

namespace husk::container {
namespace {

// The last config this thread parsed and validated, with its text: `husk run` reads its container's config in
// start (the poststart hooks) and again in delete (the poststop hooks, the tenant), and the same bytes give the
// same value. The file is read every time; only an identical text is not parsed again.
struct Parsed {
    std::string text;
    std::shared_ptr<const ParsedConfig> config;
};
thread_local std::optional<Parsed> last_parsed;

}  // namespace

void remember_config(std::string text, const ContainerConfig& config) {
    last_parsed = Parsed{std::move(text), std::make_shared<const ParsedConfig>(ParsedConfig{config.spec, config.husk})};
}

Result<std::shared_ptr<const ParsedConfig>> read_parsed_config(const state::StateDir& dir) {
    const std::string path = dir.file(state::StateDir::config);
    std::string text = TRY(read_file_at(dir.fd(), state::StateDir::config, max_json_bytes));
    if (!last_parsed || last_parsed->text != text) {
        last_parsed.reset();
        auto spec = spec::parse_config(text);
        if (!spec) return fail(spec.error().context(path));
        auto husk = spec::validate(*spec);
        if (!husk) return fail(husk.error().context(path));
        last_parsed = Parsed{std::move(text),
                             std::make_shared<const ParsedConfig>(ParsedConfig{std::move(*spec), std::move(*husk)})};
    }
    return last_parsed->config;
}

Result<ContainerConfig> read_config(const state::StateDir& dir, const state::Record& record) {
    std::shared_ptr<const ParsedConfig> parsed = TRY(read_parsed_config(dir));
    ContainerId id = TRY(ContainerId::parse(record.id));
    return ContainerConfig{std::move(id), parsed->spec, parsed->husk, cgroup_of(record)};
}

}  // namespace husk::container
