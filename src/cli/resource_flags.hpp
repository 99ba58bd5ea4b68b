// Flags that give a cgroup limit, shared by husk sandbox (one run) and husk tenant set (all of a tenant's runs):
// --memory SIZE, --pids N, --cpus X read the same way in both. Each error names the flag.
#pragma once

#include <cstdint>
#include <string>

#include "husk/error.hpp"

namespace husk::cli {

// A whole number in [low, high].
Result<std::uint64_t> whole_number(const std::string& flag, const std::string& text, std::uint64_t low, std::uint64_t high);
// A size (base/size.hpp: 64m, 1GiB), greater than 0.
Result<std::uint64_t> size_flag(const std::string& flag, const std::string& text);
// A number of CPUs, at least 0.01 (the kernel's smallest cpu.max quota is 1 ms per 100 ms period).
Result<double> cpus_flag(const std::string& text);

}  // namespace husk::cli
