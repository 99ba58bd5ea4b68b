#include "shim/footprint.hpp"

#include <malloc.h>
#include <sys/mman.h>

#include <cstdio>
#include <cstring>

namespace husk::shim {

void release_idle_memory() noexcept {
    ::malloc_trim(0);
    std::FILE* maps = std::fopen("/proc/self/maps", "re");
    if (!maps) return;
    char line[512];
    while (std::fgets(line, sizeof line, maps)) {
        unsigned long start = 0, end = 0;
        char perms[5] = {};
        unsigned long long offset = 0, inode = 0;
        int path_at = 0;
        if (std::sscanf(line, "%lx-%lx %4s %llx %*x:%*x %llu %n", &start, &end, perms, &offset, &inode, &path_at) < 5) continue;
        // Only text backed by a file (inode != 0): never the vdso, never anything writable or written (a
        // private page once written would lose its contents).
        if (std::strcmp(perms, "r-xp") != 0 || inode == 0) continue;
        ::madvise(reinterpret_cast<void*>(start), end - start, MADV_DONTNEED);
    }
    std::fclose(maps);
}

}  // namespace husk::shim
