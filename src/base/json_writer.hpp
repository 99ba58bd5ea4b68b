// JsonWriter: builds a JSON document with yajl_gen (state, list, features, spec output).
#pragma once

#include <yajl/yajl_gen.h>

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

namespace husk {

class JsonWriter {
public:
    enum class Style { compact, pretty };
    explicit JsonWriter(Style style = Style::compact);

    JsonWriter& begin_object();
    JsonWriter& end_object();
    JsonWriter& begin_array();
    JsonWriter& end_array();
    JsonWriter& key(std::string_view name);
    JsonWriter& string(std::string_view value);
    JsonWriter& integer(std::int64_t value);
    JsonWriter& unsigned_integer(std::uint64_t value);
    JsonWriter& boolean(bool value);
    JsonWriter& null();
    // Inserts an already-encoded JSON value verbatim (must be valid JSON).
    JsonWriter& raw(std::string_view json);

    std::string str() const;

private:
    struct Free {
        void operator()(yajl_gen_t* g) const { yajl_gen_free(g); }
    };
    std::unique_ptr<yajl_gen_t, Free> gen_;
};

}  // namespace husk
