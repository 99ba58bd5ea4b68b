// The network allow-list of run.husk.net-allow and --net-allow (docs/network-policy.md): which TCP and UDP
// destinations a container may connect or send to. Pure: parsing and matching, no system calls.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "husk/error.hpp"

namespace husk::spec {

// One destination network: an IPv4 or IPv6 prefix, and one port or every port.
struct NetAllowEntry {
    enum class Family { ipv4, ipv6 };
    Family family = Family::ipv4;
    std::array<std::uint8_t, 16> address{};  // network byte order; IPv4 uses the first 4 bytes
    unsigned prefix = 0;                     // bits, ≤ 32 or ≤ 128; bits past it are zero
    std::optional<std::uint16_t> port;       // nullopt: every port

    bool operator==(const NetAllowEntry&) const = default;
};

// A policy: only these destinations (an empty list, written "none", allows none at all).
struct NetAllow {
    std::vector<NetAllowEntry> entries;
    bool operator==(const NetAllow&) const = default;
};

// One entry: "10.0.0.0/8", "10.0.0.1/32:53", "10.0.0.1" (= /32), "::1/128", "[fd00::/8]:443", "[::1]:53"
// (= /128). A port needs the brackets around an IPv6 prefix. Errors say what is wrong with the entry.
Result<NetAllowEntry> parse_net_allow_entry(std::string_view text);

// The comma-separated list of the annotation ("10.0.0.1/32:53,::1/128"), or "none". Spaces around entries
// are ignored; an empty entry, or "none" beside other entries, is an error.
Result<NetAllow> parse_net_allow(std::string_view text);

// The entry as it is written back ("10.0.0.1/32:53", "[::1/128]:53").
std::string to_string(const NetAllowEntry& entry);

}  // namespace husk::spec
