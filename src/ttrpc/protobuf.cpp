#include "ttrpc/protobuf.hpp"

#include <string>

namespace husk::ttrpc {
namespace {

constexpr std::uint32_t max_field_number = (1u << 29) - 1;
constexpr std::size_t max_varint_bytes = 10;

std::string_view wire_type_name(WireType type) {
    switch (type) {
        case WireType::varint: return "varint";
        case WireType::fixed64: return "fixed64";
        case WireType::bytes: return "length-delimited";
        case WireType::fixed32: return "fixed32";
    }
    return "unknown";
}

Result<void> expect(const ProtoField& field, WireType type, std::string_view name) {
    if (field.type == type) return {};
    return fail_msg(std::string(name) + ": expected " + std::string(wire_type_name(type)));
}

std::string field_label(const ProtoField& field) { return "field " + std::to_string(field.number); }

}  // namespace

void ProtoWriter::varint(std::uint64_t value) {
    while (value >= 0x80) {
        data_.push_back(static_cast<char>((value & 0x7f) | 0x80));
        value >>= 7;
    }
    data_.push_back(static_cast<char>(value));
}

void ProtoWriter::tag(int field, WireType type) {
    varint((static_cast<std::uint64_t>(field) << 3) | static_cast<std::uint64_t>(type));
}

void ProtoWriter::uint(int field, std::uint64_t value) {
    if (value == 0) return;
    tag(field, WireType::varint);
    varint(value);
}

void ProtoWriter::int64(int field, std::int64_t value) { uint(field, static_cast<std::uint64_t>(value)); }

void ProtoWriter::boolean(int field, bool value) { uint(field, value ? 1 : 0); }

void ProtoWriter::string(int field, std::string_view value) {
    if (!value.empty()) string_always(field, value);
}

void ProtoWriter::message(int field, std::string_view encoded) { string_always(field, encoded); }

void ProtoWriter::string_always(int field, std::string_view value) {
    tag(field, WireType::bytes);
    varint(value.size());
    data_.append(value);
}

Result<std::uint64_t> ProtoReader::varint(std::string_view what) {
    std::size_t start = at_;
    std::uint64_t value = 0;
    for (std::size_t i = 0; i < max_varint_bytes; ++i) {
        if (at_ >= data_.size())
            return fail_msg("truncated " + std::string(what) + " at offset " + std::to_string(start));
        auto byte = static_cast<std::uint8_t>(data_[at_++]);
        // The tenth byte holds the 64th bit only; higher bits are dropped as protobuf's decoders drop them.
        value |= static_cast<std::uint64_t>(byte & 0x7f) << (7 * i);
        if ((byte & 0x80) == 0) return value;
    }
    return fail_msg(std::string(what) + " longer than 10 bytes at offset " + std::to_string(start));
}

Result<std::optional<ProtoField>> ProtoReader::next() {
    if (at_ >= data_.size()) return std::optional<ProtoField>{};
    std::size_t start = at_;
    std::uint64_t key = TRY(varint("field key"));
    std::uint64_t number = key >> 3;
    auto wire = static_cast<unsigned>(key & 7);
    if (number == 0 || number > max_field_number)
        return fail_msg("field number " + std::to_string(number) + " out of range at offset " + std::to_string(start));
    ProtoField field;
    field.number = static_cast<std::uint32_t>(number);
    auto fixed = [&](std::size_t size) -> Result<std::uint64_t> {
        if (data_.size() - at_ < size)
            return fail_msg("field " + std::to_string(number) + ": truncated fixed" + std::to_string(size * 8) +
                            " at offset " + std::to_string(at_));
        std::uint64_t value = 0;
        for (std::size_t i = 0; i < size; ++i)
            value |= static_cast<std::uint64_t>(static_cast<std::uint8_t>(data_[at_ + i])) << (8 * i);
        at_ += size;
        return value;
    };
    switch (wire) {
        case 0:
            field.type = WireType::varint;
            field.value = TRY(varint("varint"));
            break;
        case 1:
            field.type = WireType::fixed64;
            field.value = TRY(fixed(8));
            break;
        case 5:
            field.type = WireType::fixed32;
            field.value = TRY(fixed(4));
            break;
        case 2: {
            field.type = WireType::bytes;
            std::size_t length_at = at_;
            std::uint64_t length = TRY(varint("length"));
            if (length > data_.size() - at_)
                return fail_msg("field " + std::to_string(number) + ": length " + std::to_string(length) +
                                " at offset " + std::to_string(length_at) + " runs past the end (" +
                                std::to_string(data_.size() - at_) + " bytes left)");
            field.bytes = data_.substr(at_, length);
            at_ += length;
            break;
        }
        case 3:
        case 4:
            return fail_msg("field " + std::to_string(number) + ": group wire type " + std::to_string(wire) +
                            " (not in proto3) at offset " + std::to_string(start));
        default:
            return fail_msg("field " + std::to_string(number) + ": invalid wire type " + std::to_string(wire) +
                            " at offset " + std::to_string(start));
    }
    return field;
}

Result<std::string_view> bytes_of(const ProtoField& field, std::string_view name) {
    TRY(expect(field, WireType::bytes, name));
    return field.bytes;
}

Result<std::uint64_t> uint_of(const ProtoField& field, std::string_view name) {
    TRY(expect(field, WireType::varint, name));
    return field.value;
}

Result<std::uint32_t> uint32_of(const ProtoField& field, std::string_view name) {
    return static_cast<std::uint32_t>(TRY(uint_of(field, name)));
}

Result<bool> bool_of(const ProtoField& field, std::string_view name) { return TRY(uint_of(field, name)) != 0; }

Result<std::string_view> bytes_of(const ProtoField& field) { return bytes_of(field, field_label(field)); }
Result<std::uint64_t> uint_of(const ProtoField& field) { return uint_of(field, field_label(field)); }
Result<std::uint32_t> uint32_of(const ProtoField& field) { return uint32_of(field, field_label(field)); }
Result<bool> bool_of(const ProtoField& field) { return bool_of(field, field_label(field)); }

Result<std::optional<ProtoField>> next_field(ProtoReader& reader, std::string_view message) {
    auto field = reader.next();
    if (!field) field.error().context(message);
    return field;
}

}  // namespace husk::ttrpc
