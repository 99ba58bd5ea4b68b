// run.husk.init's pid 1, as an fd to execute: a memfd holding husk-init, sealed against every change.
// Why a sealed copy (CVE-2019-5736): the container sees its init's binary as /proc/1/exe; if that were husk's
// own file, or any file on the host, a process in the container could try to open it for writing. A memfd
// belongs to no filesystem, and with F_SEAL_WRITE, F_SEAL_GROW, F_SEAL_SHRINK and F_SEAL_SEAL nobody,
// root included, can change its bytes or remove the seals; while it runs, an open for writing also meets
// ETXTBSY. It is created in the parent (it allocates) and executed in the child with execveat(AT_EMPTY_PATH).
#pragma once

#include "husk/error.hpp"
#include "husk/unique_fd.hpp"

namespace husk::init {

Result<UniqueFd> open_sealed_init();

}  // namespace husk::init
