// runc update's resource flags (runc update.go) → linux.resources fields. They are applied on top of the
// --resources JSON, so a flag overrides the same field of the file.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "husk/error.hpp"
#include "husk/spec.hpp"

namespace husk::cli {

struct UpdateFlagInfo {
    const char* name;  // without dashes: "memory"
    const char* help;
};

// Every flag `husk update` accepts besides --resources, in runc's order (plus --cpu-shares, an alias).
std::span<const UpdateFlagInfo> update_flags();

struct UpdateFlag {
    std::string name;
    std::string value;
};

// go-units RAMInBytes, as runc parses --memory, --memory-swap and --memory-reservation: a decimal number,
// an optional space and an optional binary unit (k, m, g, t, p; case-insensitive; optionally followed by "b"
// or "ib"; "b" alone = bytes), truncated to whole bytes. "-1" means unlimited.
Result<std::int64_t> parse_memory_size(std::string_view text);

// Sets each flag's field in resources (creating its memory, cpu or blockIO object). Errors name the flag:
// `--cpu-quota "x": not an integer`. The Intel RDT flags are refused: husk does not implement linux.intelRdt.
Result<void> apply_update_flags(const std::vector<UpdateFlag>& flags, spec::Resources& resources);

}  // namespace husk::cli
