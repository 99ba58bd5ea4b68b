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
#include "husk/settings.hpp"

namespace husk::spec {

// One entry: "10.0.0.0/8", "10.0.0.1/32:53", "10.0.0.1" (= /32), "::1/128", "[fd00::/8]:443", "[::1]:53"
// (= /128). A port needs the brackets around an IPv6 prefix. Errors say what is wrong with the entry.
Result<NetAllowEntry> parse_net_allow_entry(std::string_view text);

// The comma-separated list of the annotation ("10.0.0.1/32:53,::1/128"), or "none". Spaces around entries
// are ignored; an empty entry, or "none" beside other entries, is an error.
Result<NetAllow> parse_net_allow(std::string_view text);

// The entry as it is written back ("10.0.0.1/32:53", "[::1/128]:53").
std::string to_string(const NetAllowEntry& entry);

}  // namespace husk::spec
