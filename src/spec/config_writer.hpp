// config.json text that husk writes: pieces written in more than one place (`husk spec`, `husk sandbox`), and the
// effective config create stores (docs/ARCHITECTURE.md, "The effective config").
#pragma once

#include <initializer_list>
#include <map>
#include <string>
#include <string_view>

#include "base/json_tree.hpp"
#include "base/json_writer.hpp"
#include "husk/error.hpp"

namespace husk::spec {

using Strings = std::initializer_list<std::string_view>;

// "key": [values...]; values is any range of things a string_view is made from.
template <typename Range>
void write_strings(JsonWriter& out, std::string_view key, const Range& values) {
    out.key(key).begin_array();
    for (std::string_view value : values) out.string(value);
    out.end_array();
}
inline void write_strings(JsonWriter& out, std::string_view key, Strings values) {
    write_strings<Strings>(out, key, values);
}

// One mounts[] entry; options left out when there are none.
inline void write_mount(JsonWriter& out, std::string_view destination, std::string_view type, std::string_view source,
                        Strings options) {
    out.begin_object().key("destination").string(destination).key("type").string(type).key("source").string(source);
    if (options.size() > 0) write_strings(out, "options", options);
    out.end_object();
}

// The config with its top-level "annotations" replaced by `annotations` (added at the end when it had none): every
// other member as it was written, in its place, numbers in their own digits. Compact.
// The config's parsed tree (base/json_tree.hpp) in, its text out.
Result<std::string> config_with_annotations(const JsonTree& config,
                                            const std::map<std::string, std::string>& annotations);

}  // namespace husk::spec
