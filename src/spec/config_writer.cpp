#include "spec/config_writer.hpp"

#include <yajl/yajl_tree.h>

#include "base/json_tree.hpp"

namespace husk::spec {
namespace {

// One value of a parsed tree as it was: yajl keeps each number's text, and members in document order.
void write_value(JsonWriter& out, yajl_val value) {
    if (YAJL_IS_OBJECT(value)) {
        out.begin_object();
        for (std::size_t i = 0; i < value->u.object.len; ++i) {
            out.key(value->u.object.keys[i]);
            write_value(out, value->u.object.values[i]);
        }
        out.end_object();
    } else if (YAJL_IS_ARRAY(value)) {
        out.begin_array();
        for (std::size_t i = 0; i < value->u.array.len; ++i) write_value(out, value->u.array.values[i]);
        out.end_array();
    } else if (YAJL_IS_STRING(value)) {
        out.string(value->u.string);
    } else if (YAJL_IS_NUMBER(value)) {
        out.raw(value->u.number.r);
    } else if (YAJL_IS_TRUE(value) || YAJL_IS_FALSE(value)) {
        out.boolean(YAJL_IS_TRUE(value));
    } else {
        out.null();
    }
}

void write_annotations(JsonWriter& out, const std::map<std::string, std::string>& annotations) {
    out.key("annotations").begin_object();
    for (const auto& [key, value] : annotations) out.key(key).string(value);
    out.end_object();
}

}  // namespace

Result<std::string> config_with_annotations(std::string_view config_text,
                                            const std::map<std::string, std::string>& annotations) {
    JsonTree tree = TRY(parse_json_tree(config_text));
    yajl_val top = tree.get();
    if (!YAJL_IS_OBJECT(top)) return fail_msg("(top level): expected an object");
    // On duplicate keys parse_config reads the last (json_reader.hpp): the annotations go there, and the others,
    // which would only contradict them, are left out.
    std::size_t last = top->u.object.len;
    for (std::size_t i = 0; i < top->u.object.len; ++i)
        if (std::string_view(top->u.object.keys[i]) == "annotations") last = i;
    JsonWriter out;
    out.begin_object();
    for (std::size_t i = 0; i < top->u.object.len; ++i) {
        if (i == last) write_annotations(out, annotations);
        if (std::string_view(top->u.object.keys[i]) == "annotations") continue;
        out.key(top->u.object.keys[i]);
        write_value(out, top->u.object.values[i]);
    }
    if (last == top->u.object.len) write_annotations(out, annotations);
    out.end_object();
    return out.str();
}

}  // namespace husk::spec
