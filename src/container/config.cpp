#include "container/config.hpp"

#include "base/fs.hpp"
#include "base/json_tree.hpp"
#include "spec/parse.hpp"
#include "spec/validate.hpp"

namespace husk::container {

Result<ContainerConfig> read_config(const state::StateDir& dir, const state::Record& record) {
    const std::string path = dir.file(state::StateDir::config);
    std::string text = TRY(read_file_at(dir.fd(), state::StateDir::config, max_json_bytes));
    auto spec = spec::parse_config(text);
    if (!spec) return fail(spec.error().context(path));
    auto husk = spec::validate(*spec);
    if (!husk) return fail(husk.error().context(path));
    ContainerId id = TRY(ContainerId::parse(record.id));
    return ContainerConfig{std::move(id), std::move(*spec), std::move(*husk), cgroup_of(record)};
}

}  // namespace husk::container
