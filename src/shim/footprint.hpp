// What the serving shim gives back while it only watches. Creating a container runs most of husk (the config's
// parse and validation, the seccomp compiler, the spawn), and every code page it touched stays in the shim's
// resident set for the container's life although the shim never runs that code again until the next call.
// Unmapping the shim's code pages (MADV_DONTNEED on its own read-only, executable file mappings, which the
// process never writes) leaves them in the page cache, shared with every other husk: the next call faults in
// what it runs, at the cost of minor faults. Heap the allocator holds free goes back too (malloc_trim).
#pragma once

namespace husk::shim {

void release_idle_memory() noexcept;

}  // namespace husk::shim
