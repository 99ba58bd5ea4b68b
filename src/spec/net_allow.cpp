#include "spec/net_allow.hpp"

#include <arpa/inet.h>

#include <algorithm>
#include <charconv>

#include "base/quote.hpp"

namespace husk::spec {
namespace {

std::string_view trimmed(std::string_view text) {
    while (!text.empty() && text.front() == ' ') text.remove_prefix(1);
    while (!text.empty() && text.back() == ' ') text.remove_suffix(1);
    return text;
}

// Digits only, within [low, high].
std::optional<unsigned> number(std::string_view text, unsigned low, unsigned high) {
    unsigned value = 0;
    if (text.empty() || text.size() > 5) return std::nullopt;
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec != std::errc() || end != text.data() + text.size() || value < low || value > high) return std::nullopt;
    return value;
}

Error entry_error(std::string_view text, const std::string& why) {
    return Error::msg("network allow entry " + quoted(text) + ": " + why +
                      " (want CIDR[:PORT]: 10.0.0.0/8, 10.0.0.1/32:53, ::1/128, [fd00::/8]:443; or none)");
}

}  // namespace

Result<NetAllowEntry> parse_net_allow_entry(std::string_view text) {
    const std::string_view original = text;
    auto bad = [&](const std::string& why) { return std::unexpected(entry_error(original, why)); };
    NetAllowEntry entry;
    std::string_view cidr = text, port_text;
    bool has_port = false;
    if (text.starts_with('[')) {
        std::size_t close = text.find(']');
        if (close == std::string_view::npos) return bad("no ] after [");
        cidr = text.substr(1, close - 1);
        std::string_view rest = text.substr(close + 1);
        if (!rest.empty()) {
            if (rest.front() != ':') return bad("want :PORT after ]");
            port_text = rest.substr(1);
            has_port = true;
        }
        if (cidr.find(':') == std::string_view::npos) return bad("brackets are for IPv6 prefixes");
    } else if (std::size_t colons = static_cast<std::size_t>(std::count(text.begin(), text.end(), ':')); colons == 1) {
        std::size_t colon = text.find(':');
        cidr = text.substr(0, colon);
        port_text = text.substr(colon + 1);
        has_port = true;
    }
    // Otherwise no colon (IPv4 without a port) or several (IPv6 without a port).

    if (has_port) {
        auto port = number(port_text, 1, 65535);
        if (!port) return bad("port " + quoted(port_text) + " is not a number from 1 to 65535");
        entry.port = static_cast<std::uint16_t>(*port);
    }
    std::size_t slash = cidr.find('/');
    std::string address(cidr.substr(0, slash));
    const bool v6 = address.find(':') != std::string::npos;
    entry.family = v6 ? NetAllowEntry::Family::ipv6 : NetAllowEntry::Family::ipv4;
    const unsigned bits = v6 ? 128 : 32;
    if (::inet_pton(v6 ? AF_INET6 : AF_INET, address.c_str(), entry.address.data()) != 1)
        return bad(quoted(address) + " is not an " + (v6 ? "IPv6" : "IPv4") + " address");
    entry.prefix = bits;
    if (slash != std::string_view::npos) {
        auto prefix = number(cidr.substr(slash + 1), 0, bits);
        if (!prefix) return bad("prefix length " + quoted(cidr.substr(slash + 1)) + " is not a number from 0 to " +
                                std::to_string(bits));
        entry.prefix = *prefix;
    }
    // Bits past the prefix usually mean a typo (10.0.0.1/8 for 10.0.0.0/8 or 10.0.0.1/32): say so.
    for (unsigned bit = entry.prefix; bit < bits; ++bit)
        if (entry.address[bit / 8] & (0x80u >> (bit % 8)))
            return bad("address bits past the prefix length are set (the network of /" +
                       std::to_string(entry.prefix) + " has them zero; a single address is /" + std::to_string(bits) + ")");
    return entry;
}

Result<NetAllow> parse_net_allow(std::string_view text) {
    NetAllow allow;
    if (trimmed(text) == "none") return allow;
    for (std::size_t at = 0; at <= text.size();) {
        std::size_t comma = std::min(text.find(',', at), text.size());
        std::string_view item = trimmed(text.substr(at, comma - at));
        if (item.empty()) return fail_msg("empty network allow entry in " + quoted(text) + " (entries are separated by one comma)");
        if (item == "none") return fail_msg("\"none\" allows nothing, so it cannot stand beside other entries in " + quoted(text));
        allow.entries.push_back(TRY(parse_net_allow_entry(item)));
        at = comma + 1;
    }
    return allow;
}

std::string to_string(const NetAllowEntry& entry) {
    const bool v6 = entry.family == NetAllowEntry::Family::ipv6;
    char address[INET6_ADDRSTRLEN] = {};
    ::inet_ntop(v6 ? AF_INET6 : AF_INET, entry.address.data(), address, sizeof address);
    std::string cidr = std::string(address) + "/" + std::to_string(entry.prefix);
    if (!entry.port) return cidr;
    return (v6 ? "[" + cidr + "]" : cidr) + ":" + std::to_string(*entry.port);
}

}  // namespace husk::spec
