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
    TRY(open_tenants_dir(root));  // a symlink there is refused, not followed
    return dir;
}

Result<UniqueFd> open_tenants_dir(const std::string& root) {
    const std::string dir = root + "/tenants";
    auto fd = open_fd(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
    if (!fd && (fd.error().err == ELOOP || fd.error().err == ENOTDIR))
        return fail_msg(dir + ": not a directory of its own (a symlink?); husk never follows one to a tenant's files");
    return fd;
}

Result<void> write_ceilings(const std::string& root, std::string_view name, const Ceilings& ceilings) {
    TRY(validate_name(name));
    TRY(tenants_dir(root));
    UniqueFd dir = TRY(open_tenants_dir(root));
    return write_file_atomic(dir.get(), std::string(name) + ".json", encode_ceilings(ceilings));
}

Result<Ceilings> read_ceilings(const std::string& root, std::string_view name) {
    TRY(validate_name(name));
    std::string path = root + "/tenants/" + std::string(name) + ".json";
    auto dir = open_tenants_dir(root);
    if (!dir && dir.error().err == ENOENT)
        return fail_msg("tenant " + quoted(name) + " does not exist (husk tenant set " + std::string(name) +
                            " ... makes it)",
                        ErrorKind::not_found);
    if (!dir) return fail(dir.error());
    auto text = read_file_at(dir->get(), std::string(name) + ".json", 64 * 1024, O_NOFOLLOW);
    if (!text && text.error().err == ENOENT)
        return fail_msg("tenant " + quoted(name) + " does not exist (husk tenant set " + std::string(name) +
                            " ... makes it)",
                        ErrorKind::not_found);
    if (!text && text.error().err == ELOOP)
        return fail_msg(path + ": a symlink; husk never follows one to a tenant's files");
    if (!text) return fail(text.error().context(path));
    auto ceilings = decode_ceilings(*text);
    if (!ceilings) return fail(ceilings.error().context(path));
    return ceilings;
}

}  // namespace husk::tenant
