// The proto3 wire format, written and read by hand: the few messages the containerd shim speaks need varints,
// length-delimited fields and nothing else (https://protobuf.dev/programming-guides/encoding/).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "husk/error.hpp"

namespace husk::ttrpc {

enum class WireType : std::uint8_t { varint = 0, fixed64 = 1, bytes = 2, fixed32 = 5 };

// Appends fields to one message. proto3 leaves out a scalar or string equal to its default (0, false, ""), so
// do these writers; a sub-message and the elements of a repeated string are written whatever they hold.
class ProtoWriter {
public:
    void uint(int field, std::uint64_t value);         // varint: uint32, uint64, enum
    void int64(int field, std::int64_t value);         // varint of the two's complement; int32 sign-extended
    void boolean(int field, bool value);
    void string(int field, std::string_view value);    // string and bytes
    void message(int field, std::string_view encoded); // a sub-message: written even when `encoded` is empty
    void string_always(int field, std::string_view value);  // repeated string elements: written even when empty
    const std::string& data() const { return data_; }
    std::string take() { return std::move(data_); }

private:
    void tag(int field, WireType type);
    void varint(std::uint64_t value);
    std::string data_;
};

// One field as read: its number and wire type, the value of a varint or fixed field, or the bytes of a
// length-delimited one (a view into the reader's input).
struct ProtoField {
    std::uint32_t number = 0;
    WireType type = WireType::varint;
    std::uint64_t value = 0;
    std::string_view bytes;
};

// Walks the fields of one message. It never allocates and never reads past its input.
class ProtoReader {
public:
    explicit ProtoReader(std::string_view data) : data_(data) {}
    // The next field, nullopt at the end. Errors name what is wrong and its offset: a truncated varint, length or
    // fixed value, a varint over 10 bytes, a length past the end, field number 0 or over 2^29-1, and wire types
    // 3 and 4 (groups, which proto3 does not have) and 6 and 7 (undefined).
    Result<std::optional<ProtoField>> next();

private:
    Result<std::uint64_t> varint(std::string_view what);
    std::string_view data_;
    std::size_t at_ = 0;
};

// Typed access: an error when the wire type is not the one the field is declared with ("field 3: expected
// varint"); decoders prefix the message and field name.
Result<std::string_view> bytes_of(const ProtoField& field);
Result<std::uint64_t> uint_of(const ProtoField& field);
Result<std::uint32_t> uint32_of(const ProtoField& field);  // the low 32 bits, as protobuf truncates
Result<bool> bool_of(const ProtoField& field);
// The same, naming the field as the decoders do: "CreateTaskRequest.terminal: expected varint".
Result<std::string_view> bytes_of(const ProtoField& field, std::string_view name);
Result<std::uint64_t> uint_of(const ProtoField& field, std::string_view name);
Result<std::uint32_t> uint32_of(const ProtoField& field, std::string_view name);
Result<bool> bool_of(const ProtoField& field, std::string_view name);

// The next field of `message` (its name for errors: "Request: truncated varint at offset 3").
Result<std::optional<ProtoField>> next_field(ProtoReader& reader, std::string_view message);

}  // namespace husk::ttrpc
