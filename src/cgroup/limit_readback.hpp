// Reading a limit back: the kernel stores many values in its own units and prints them in its own form
// (memory in pages, "max 100000", "0-1" for "0,1", io.max lines with all four keys), so "what was written"
// and "what is read" are compared after that normalisation, per file.
#pragma once

#include <string_view>

namespace husk::cgroup {

enum class Readback {
    match,     // the kernel holds what was written
    mismatch,  // it holds something else
    unknown,   // husk does not know this file's format, or could not parse the written text
};

// Pure. page_size is the base page size (sysconf(_SC_PAGESIZE)); memory.* values round down to it,
// hugetlb.<size>.* values to the huge page size in the file name.
Readback compare_readback(std::string_view file, std::string_view written, std::string_view read, std::size_t page_size);

}  // namespace husk::cgroup
