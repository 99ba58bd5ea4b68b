#include "tenant/ceilings.hpp"

#include <fcntl.h>
#include <sys/stat.h>

#include <cerrno>

#include "base/fs.hpp"
#include "base/json_reader.hpp"
#include "base/json_writer.hpp"
#include "base/quote.hpp"
#include "husk/container_id.hpp"

namespace husk::tenant {
namespace {

struct Field {
    const char* key;
    std::optional<std::uint64_t> Ceilings::*member;
};
constexpr Field fields[] = {
    {"cpuUsec", &Ceilings::cpu_usec},       {"wallUsec", &Ceilings::wall_usec},
    {"runs", &Ceilings::runs},              {"outputBytes", &Ceilings::output_bytes},
    {"concurrent", &Ceilings::concurrent},  {"periodUsec", &Ceilings::period_usec},
    {"memoryBytes", &Ceilings::memory_bytes}, {"pids", &Ceilings::pids},
    {"cpuQuotaUsec", &Ceilings::cpu_quota_usec},
};

}  // namespace

Result<void> validate_name(std::string_view name) {
    if (ContainerId::parse(name)) return {};
    return fail_msg("invalid tenant name " + quoted(name) +
                    " (letters, digits and _ + - ., not . or .., not starting with -, at most 1024 bytes)");
}

std::string encode_ceilings(const Ceilings& ceilings) {
    JsonWriter w(JsonWriter::Style::pretty);
    w.begin_object();
    for (const Field& field : fields)
        if (const auto& value = ceilings.*field.member) w.key(field.key).unsigned_integer(*value);
    w.end_object();
    return w.str() + "\n";
}

Result<Ceilings> decode_ceilings(std::string_view text) {
    auto tree = json::parse_tree(text);
    if (!tree) return fail(tree.error().context("corrupt tenant file"));
    json::Node root(tree->get(), "");
    if (!root.expect_object()) return fail_msg("corrupt tenant file: not a JSON object");
    Ceilings ceilings;
    for (const Field& field : fields) {
        auto read = json::read_field(root, field.key, ceilings.*field.member);
        if (!read) return fail(read.error().context("corrupt tenant file"));
    }
    return ceilings;
}

Result<std::string> tenants_dir(const std::string& root) {
    std::string dir = root + "/tenants";
    if (::mkdir(root.c_str(), 0711) != 0 && errno != EEXIST) return fail_sys(errno, "mkdir", root);
    if (::mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST) return fail_sys(errno, "mkdir", dir);
    return dir;
}

Result<void> write_ceilings(const std::string& root, std::string_view name, const Ceilings& ceilings) {
    TRY(validate_name(name));
    UniqueFd dir = TRY(open_fd(TRY(tenants_dir(root)), O_RDONLY | O_DIRECTORY));
    return write_file_atomic(dir.get(), std::string(name) + ".json", encode_ceilings(ceilings));
}

Result<Ceilings> read_ceilings(const std::string& root, std::string_view name) {
    TRY(validate_name(name));
    std::string path = root + "/tenants/" + std::string(name) + ".json";
    auto text = read_file(path, 64 * 1024);
    if (!text && text.error().err == ENOENT)
        return fail_msg("tenant " + quoted(name) + " does not exist (husk tenant set " + std::string(name) +
                            " ... makes it)",
                        ErrorKind::not_found);
    if (!text) return fail(text.error());
    auto ceilings = decode_ceilings(*text);
    if (!ceilings) return fail(ceilings.error().context(path));
    return ceilings;
}

}  // namespace husk::tenant
