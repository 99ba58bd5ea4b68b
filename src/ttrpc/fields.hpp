// Decoding a message from a table of its fields: number, name and the member each lands in. Unknown fields are
// skipped; a known field of the wrong wire type is an error naming "Message.field".
#pragma once

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "husk/error.hpp"
#include "ttrpc/protobuf.hpp"
#include "ttrpc/types.hpp"

namespace husk::ttrpc {

using StringMap = std::vector<std::pair<std::string, std::string>>;

template <typename T>
struct FieldOf {
    std::uint32_t number;
    std::string_view name;
    // string/bytes, bool, uint32 (or enum), an optional Any, repeated Mount, repeated string, map<string, string>
    std::variant<std::string T::*, bool T::*, std::uint32_t T::*, std::optional<Any> T::*, std::vector<Mount> T::*,
                 std::vector<std::string> T::*, StringMap T::*>
        member;
};

// A map<string, string> entry, and ttrpc's KeyValue: key=1, value=2. `message` names it in errors.
Result<std::pair<std::string, std::string>> decode_string_pair(std::string_view data, std::string_view message);

// A sub-message's result, its error prefixed with the field that held it.
template <typename V>
Result<V> within(Result<V> decoded, std::string_view name) {
    if (!decoded) decoded.error().context(name);
    return decoded;
}

template <typename T>
Result<void> decode_field(T& out, const FieldOf<T>& spec, const ProtoField& field, std::string_view message) {
    std::string name = std::string(message) + "." + std::string(spec.name);
    struct Visitor {
        T& out;
        const ProtoField& field;
        const std::string& name;
        Result<void> operator()(std::string T::*member) const {
            out.*member = TRY(bytes_of(field, name));
            return {};
        }
        Result<void> operator()(bool T::*member) const {
            out.*member = TRY(bool_of(field, name));
            return {};
        }
        Result<void> operator()(std::uint32_t T::*member) const {
            out.*member = TRY(uint32_of(field, name));
            return {};
        }
        Result<void> operator()(std::optional<Any> T::*member) const {
            std::string_view bytes = TRY(bytes_of(field, name));
            out.*member = TRY(within(decode_any(bytes), name));
            return {};
        }
        Result<void> operator()(std::vector<Mount> T::*member) const {
            std::string_view bytes = TRY(bytes_of(field, name));
            (out.*member).push_back(TRY(within(decode_mount(bytes), name)));
            return {};
        }
        Result<void> operator()(std::vector<std::string> T::*member) const {
            (out.*member).emplace_back(TRY(bytes_of(field, name)));
            return {};
        }
        Result<void> operator()(StringMap T::*member) const {
            std::string_view bytes = TRY(bytes_of(field, name));
            (out.*member).push_back(TRY(within(decode_string_pair(bytes, "map entry"), name)));
            return {};
        }
    };
    return std::visit(Visitor{out, field, name}, spec.member);
}

template <typename T>
Result<T> decode_fields(std::string_view data, std::string_view message, std::initializer_list<FieldOf<T>> fields) {
    T out{};
    ProtoReader reader(data);
    while (auto field = TRY(next_field(reader, message))) {
        for (const auto& spec : fields) {
            if (spec.number != field->number) continue;
            TRY(decode_field(out, spec, *field, message));
            break;
        }
    }
    return out;
}

}  // namespace husk::ttrpc
