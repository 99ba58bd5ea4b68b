// Coverage feedback for the fuzz driver (driver.cpp). With -Dfuzz=true every translation unit is compiled
// with g++'s -fsanitize-coverage=trace-pc, which calls __sanitizer_cov_trace_pc at each basic block, and
// with `-include` of this header: no runtime defines that function, so each object carries a weak copy and
// the linker keeps one. Outside a fuzz driver the counters are written and never read.
#pragma once

#include <cstddef>

namespace husk::fuzz {
inline constexpr std::size_t coverage_map_size = 1 << 16;
inline unsigned char coverage_map[coverage_map_size];
}  // namespace husk::fuzz

// A counter per call site (the approximate edge), bucketed by the driver. Neither instrumented for coverage
// (it would recurse) nor checked by ASan (the index is always in range; a check per basic block is slow).
extern "C" __attribute__((weak, used, no_sanitize_coverage, no_sanitize("address"))) void __sanitizer_cov_trace_pc() {
    auto pc = reinterpret_cast<unsigned long>(__builtin_return_address(0));
    unsigned char& counter = husk::fuzz::coverage_map[(pc ^ (pc >> 15)) % husk::fuzz::coverage_map_size];
    if (counter != 255) ++counter;
}
