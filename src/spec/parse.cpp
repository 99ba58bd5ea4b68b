#include "spec/parse.hpp"

#include "base/fs.hpp"
#include "base/json_reader.hpp"
#include "spec/parse_internal.hpp"

namespace husk::spec {
namespace {

using json::Node;
using json::Presence;
using json::read_array;
using json::read_field;

Result<void> parse_root(const Node& node, Root& out) {
    TRY(node.expect_object());
    TRY(read_field(node, "path", out.path, Presence::required));
    TRY(read_field(node, "readonly", out.readonly));
    return {};
}

// config.md "Mounts": destination is required; type, source and options are optional on Linux.
Result<void> parse_mount(const Node& node, Mount& out) {
    TRY(node.expect_object());
    TRY(read_field(node, "destination", out.destination, Presence::required));
    TRY(read_field(node, "type", out.type));
    TRY(read_field(node, "source", out.source));
    TRY(read_field(node, "options", out.options));
    TRY(read_array(node, "uidMappings", out.uid_mappings, detail::parse_id_mapping));
    TRY(read_array(node, "gidMappings", out.gid_mappings, detail::parse_id_mapping));
    return {};
}

Result<void> parse_hook(const Node& node, Hook& out) {
    TRY(node.expect_object());
    TRY(read_field(node, "path", out.path, Presence::required));
    TRY(read_field(node, "args", out.args));
    TRY(read_field(node, "env", out.env));
    TRY(read_field(node, "timeout", out.timeout));
    return {};
}

// config.md "POSIX-platform Hooks"; prestart is deprecated but still honoured by runc and used by clients.
constexpr const char* hook_kinds[] = {"prestart",       "createRuntime", "createContainer",
                                      "startContainer", "poststart",     "poststop"};

Result<void> parse_hooks(const Node& node, Hooks& out, std::vector<std::string>& ignored) {
    TRY(node.expect_object());
    TRY(read_array(node, "prestart", out.prestart, parse_hook));
    TRY(read_array(node, "createRuntime", out.create_runtime, parse_hook));
    TRY(read_array(node, "createContainer", out.create_container, parse_hook));
    TRY(read_array(node, "startContainer", out.start_container, parse_hook));
    TRY(read_array(node, "poststart", out.poststart, parse_hook));
    TRY(read_array(node, "poststop", out.poststop, parse_hook));
    // config.md "Extensibility": unknown properties are ignored, as runc does; but a misspelt kind would
    // silently run no hook at all, so it is recorded for a warning.
    for (const auto& [key, value] : TRY(node.as_object())) {
        bool known = false;
        for (const char* kind : hook_kinds) known = known || key == kind;
        if (!known) ignored.push_back(value.path() + ": unknown hook kind, ignored (known: prestart, createRuntime, "
                                      "createContainer, startContainer, poststart, poststop)");
    }
    return {};
}

Result<void> parse_spec(const Node& top, Spec& spec) {
    TRY(top.expect_object());
    TRY(read_field(top, "ociVersion", spec.oci_version));
    if (Node root = top.field("root"); !root.absent()) TRY(parse_root(root, spec.root));
    if (Node process = top.field("process"); !process.absent())
        TRY(detail::parse_process(process, spec.process.emplace(), spec.unsupported));
    TRY(read_field(top, "hostname", spec.hostname));
    TRY(read_field(top, "domainname", spec.domainname));
    TRY(read_array(top, "mounts", spec.mounts, parse_mount));
    if (Node hooks = top.field("hooks"); !hooks.absent()) TRY(parse_hooks(hooks, spec.hooks, spec.ignored));
    TRY(read_field(top, "annotations", spec.annotations));
    if (Node linux = top.field("linux"); !linux.absent())
        TRY(detail::parse_linux(linux, spec.linux.emplace(), spec.unsupported));
    // Other platforms' sections: meaningless on Linux, so a config carrying them is not for husk.
    for (const char* platform : {"solaris", "windows", "vm", "zos", "freebsd"})
        detail::note_unsupported(top.field(platform), spec.unsupported);
    return {};
}

}  // namespace

namespace detail {

void note_unsupported(const Node& node, std::vector<std::string>& unsupported) {
    if (node.has_content()) unsupported.push_back(node.path());
}

}  // namespace detail

Result<Spec> parse_config(std::string_view json) { return parse_config(TRY(json::parse_tree(json))); }

Result<Spec> parse_config(const JsonTree& tree) {
    Spec spec;
    TRY(parse_spec(Node(tree.get(), ""), spec));
    return spec;
}

Result<Process> parse_process_config(std::string_view json, std::vector<std::string>& unsupported) {
    json::Tree tree = TRY(json::parse_tree(json));
    Process process;
    TRY(detail::parse_process(Node(tree.get(), ""), process, unsupported));
    return process;
}

Result<Resources> parse_resources_config(std::string_view json) {
    json::Tree tree = TRY(json::parse_tree(json));
    Resources resources;
    TRY(detail::parse_resources(Node(tree.get(), ""), resources));
    return resources;
}

}  // namespace husk::spec
