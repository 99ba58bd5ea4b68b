// Landlock's access rights and scopes by name (the names of the runtime-spec proposal, which are the
// kernel's LANDLOCK_ACCESS_FS_* / _NET_* / LANDLOCK_SCOPE_* in lower case) with the ABI that introduced each.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace husk::landlock {

enum class RightKind { fs, network, scope };

struct Right {
    const char* name;  // "read_file"
    std::uint64_t bit;
    int abi;  // the first ABI version that enforces it
};

std::span<const Right> rights_of(RightKind kind);

// The right called `name`, or nullptr.
const Right* find_right(RightKind kind, std::string_view name);

// The ABI needed for one bit; a bit husk has no name for needs an ABI above abi::known_abi.
int required_abi(RightKind kind, std::uint64_t bit);

// The bits of `mask` that `abi` can enforce.
std::uint64_t enforceable(RightKind kind, std::uint64_t mask, int abi);

// A bit's name for messages and the state: "truncate", or "handledAccessFS bit 20" for an unnamed one.
std::string bit_name(RightKind kind, std::uint64_t bit);

// ", "-separated names of every bit of `mask`, lowest first; with_abi adds " (needs ABI 3)".
enum class WithAbi { no, yes };
std::string mask_names(RightKind kind, std::uint64_t mask, WithAbi with_abi = WithAbi::no);

}  // namespace husk::landlock
