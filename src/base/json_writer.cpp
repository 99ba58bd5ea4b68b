#include "base/json_writer.hpp"

#include <string>

namespace husk {

JsonWriter::JsonWriter(Style style) : gen_(yajl_gen_alloc(nullptr)) {
    if (style == Style::pretty) {
        yajl_gen_config(gen_.get(), yajl_gen_beautify, 1);
        yajl_gen_config(gen_.get(), yajl_gen_indent_string, "\t");
    }
}

JsonWriter& JsonWriter::begin_object() { yajl_gen_map_open(gen_.get()); return *this; }
JsonWriter& JsonWriter::end_object() { yajl_gen_map_close(gen_.get()); return *this; }
JsonWriter& JsonWriter::begin_array() { yajl_gen_array_open(gen_.get()); return *this; }
JsonWriter& JsonWriter::end_array() { yajl_gen_array_close(gen_.get()); return *this; }

JsonWriter& JsonWriter::key(std::string_view name) { return string(name); }

JsonWriter& JsonWriter::string(std::string_view value) {
    yajl_gen_string(gen_.get(), reinterpret_cast<const unsigned char*>(value.data()), value.size());
    return *this;
}

JsonWriter& JsonWriter::integer(std::int64_t value) {
    yajl_gen_integer(gen_.get(), value);
    return *this;
}

JsonWriter& JsonWriter::unsigned_integer(std::uint64_t value) {
    // yajl_gen_integer takes long long; values above INT64_MAX are written as number text.
    std::string text = std::to_string(value);
    yajl_gen_number(gen_.get(), text.data(), text.size());
    return *this;
}

JsonWriter& JsonWriter::boolean(bool value) { yajl_gen_bool(gen_.get(), value ? 1 : 0); return *this; }
JsonWriter& JsonWriter::null() { yajl_gen_null(gen_.get()); return *this; }

JsonWriter& JsonWriter::raw(std::string_view json) {
    // yajl_gen_number emits its argument unescaped, which is what a pre-encoded value needs.
    yajl_gen_number(gen_.get(), json.data(), json.size());
    return *this;
}

std::string JsonWriter::str() const {
    const unsigned char* buffer = nullptr;
    size_t length = 0;
    yajl_gen_get_buf(gen_.get(), &buffer, &length);
    return std::string(reinterpret_cast<const char*>(buffer), length);
}

}  // namespace husk
