#include "landlock/rights.hpp"

#include <array>
#include <string>
#include <vector>

#include "landlock/abi.hpp"
#include "landlock/landlock.hpp"

namespace husk::landlock {
namespace {

// Documentation/userspace-api/landlock.rst, "Access rights" and "Previous limitations".
constexpr std::array<Right, 16> fs_rights = {{
    {"execute", abi::fs_execute, 1},
    {"write_file", abi::fs_write_file, 1},
    {"read_file", abi::fs_read_file, 1},
    {"read_dir", abi::fs_read_dir, 1},
    {"remove_dir", abi::fs_remove_dir, 1},
    {"remove_file", abi::fs_remove_file, 1},
    {"make_char", abi::fs_make_char, 1},
    {"make_dir", abi::fs_make_dir, 1},
    {"make_reg", abi::fs_make_reg, 1},
    {"make_sock", abi::fs_make_sock, 1},
    {"make_fifo", abi::fs_make_fifo, 1},
    {"make_block", abi::fs_make_block, 1},
    {"make_sym", abi::fs_make_sym, 1},
    {"refer", abi::fs_refer, 2},
    {"truncate", abi::fs_truncate, 3},
    {"ioctl_dev", abi::fs_ioctl_dev, 5},
}};

constexpr std::array<Right, 2> network_rights = {{
    {"bind_tcp", abi::net_bind_tcp, 4},
    {"connect_tcp", abi::net_connect_tcp, 4},
}};

constexpr std::array<Right, 2> scopes = {{
    {"abstract_unix_socket", abi::scope_abstract_unix_socket, 6},
    {"signal", abi::scope_signal, 6},
}};

// The config property each kind is handled by, to name unnamed bits.
const char* property(RightKind kind) {
    switch (kind) {
        case RightKind::fs: return "handledAccessFS";
        case RightKind::network: return "handledAccessNetwork";
        case RightKind::scope: return "scoped";
    }
    return "";
}

std::vector<std::string> names_at(RightKind kind, int abi) {
    std::vector<std::string> names;
    for (const Right& right : rights_of(kind))
        if (right.abi <= abi) names.emplace_back(right.name);
    return names;
}

}  // namespace

std::span<const Right> rights_of(RightKind kind) {
    switch (kind) {
        case RightKind::fs: return fs_rights;
        case RightKind::network: return network_rights;
        case RightKind::scope: return scopes;
    }
    return {};
}

const Right* find_right(RightKind kind, std::string_view name) {
    for (const Right& right : rights_of(kind))
        if (name == right.name) return &right;
    return nullptr;
}

int required_abi(RightKind kind, std::uint64_t bit) {
    for (const Right& right : rights_of(kind))
        if (right.bit == bit) return right.abi;
    return abi::known_abi + 1;
}

std::uint64_t enforceable(RightKind kind, std::uint64_t mask, int abi) {
    std::uint64_t result = 0;
    for (unsigned i = 0; i < 64; ++i) {
        const std::uint64_t bit = 1ull << i;
        if ((mask & bit) && required_abi(kind, bit) <= abi) result |= bit;
    }
    return result;
}

std::string bit_name(RightKind kind, std::uint64_t bit) {
    for (const Right& right : rights_of(kind))
        if (right.bit == bit) return right.name;
    return std::string(property(kind)) + " bit " + std::to_string(__builtin_ctzll(bit));
}

std::string mask_names(RightKind kind, std::uint64_t mask, WithAbi with_abi) {
    std::string text;
    for (unsigned i = 0; i < 64; ++i) {
        const std::uint64_t bit = 1ull << i;
        if (!(mask & bit)) continue;
        if (!text.empty()) text += ", ";
        text += bit_name(kind, bit);
        if (with_abi == WithAbi::no) continue;
        const int needed = required_abi(kind, bit);
        if (needed > abi::known_abi)
            text += " (unknown to husk: needs an ABI above " + std::to_string(abi::known_abi) + ")";
        else
            text += " (needs ABI " + std::to_string(needed) + ")";
    }
    return text;
}

SupportedRights supported_rights(int abi) {
    return {names_at(RightKind::fs, abi), names_at(RightKind::network, abi), names_at(RightKind::scope, abi)};
}

}  // namespace husk::landlock
