// The one size syntax of every flag and annotation that takes a number of bytes (docs/husk.8.md, SIZES).
#pragma once

#include <cstdint>
#include <string_view>

#include "husk/error.hpp"

namespace husk {

// Digits, an optional fraction, optional spaces, then an optional unit: b, or k, m, g, t, p followed by
// nothing, "b" or "ib", in any case. Every unit is binary (k = 1024: "64k", "64K", "64KB" and "64KiB" are the
// same), as runc's and docker's go-units RAMInBytes read them, so one string means one size in every verb.
// A fraction must come to whole bytes ("1.5k" is 1536; "0.1k" is refused), and negative numbers, overflow
// and unknown units are refused. The error is the reason with the input quoted; callers prefix the flag or
// annotation it came from.
Result<std::uint64_t> parse_size(std::string_view text);

}  // namespace husk
