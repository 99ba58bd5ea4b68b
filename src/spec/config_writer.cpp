#include "spec/config_writer.hpp"

#include "base/json_tree.hpp"

namespace husk::spec {
namespace {

// One value of a parsed tree as it was: the tree keeps each number's text, and members in document order.
void write_value(JsonWriter& out, JsonRef value) {
    switch (value.type()) {
        case JsonType::object:
            out.begin_object();
            for (std::size_t i = 0; i < value.size(); ++i) {
                out.key(value.key(i));
                write_value(out, value.member(i));
            }
            out.end_object();
            break;
        case JsonType::array:
            out.begin_array();
            for (std::size_t i = 0; i < value.size(); ++i) write_value(out, value.element(i));
            out.end_array();
            break;
        case JsonType::string: out.string(value.text()); break;
        case JsonType::number: out.raw(value.text()); break;
        case JsonType::boolean_true: out.boolean(true); break;
        case JsonType::boolean_false: out.boolean(false); break;
        case JsonType::null: out.null(); break;
    }
}

void write_annotations(JsonWriter& out, const std::map<std::string, std::string>& annotations) {
    out.key("annotations").begin_object();
    for (const auto& [key, value] : annotations) out.key(key).string(value);
    out.end_object();
}

}  // namespace

Result<std::string> config_with_annotations(const JsonTree& config,
                                            const std::map<std::string, std::string>& annotations) {
    JsonRef top = config.get();
    if (!top.is_object()) return fail_msg("(top level): expected an object");
    // On duplicate keys parse_config reads the last (json_reader.hpp): the annotations go there, and the others,
    // which would only contradict them, are left out.
    std::size_t last = top.size();
    for (std::size_t i = 0; i < top.size(); ++i)
        if (top.key(i) == "annotations") last = i;
    JsonWriter out;
    out.begin_object();
    for (std::size_t i = 0; i < top.size(); ++i) {
        if (i == last) write_annotations(out, annotations);
        if (top.key(i) == "annotations") continue;
        out.key(top.key(i));
        write_value(out, top.member(i));
    }
    if (last == top.size()) write_annotations(out, annotations);
    out.end_object();
    return out.str();
}

}  // namespace husk::spec
