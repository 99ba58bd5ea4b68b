#include "init/sealed_init.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

#include "init/image.hpp"

namespace husk::init {

Result<UniqueFd> open_sealed_init() {
    UniqueFd fd(::memfd_create("husk-init", MFD_CLOEXEC | MFD_ALLOW_SEALING));
    if (!fd) return fail_sys(errno, "memfd_create", "husk-init");
    for (std::size_t done = 0; done < image_size;) {
        ssize_t n = ::write(fd.get(), image_bytes + done, image_size - done);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return fail_sys(n < 0 ? errno : EIO, "write", "memfd husk-init");
        done += static_cast<std::size_t>(n);
    }
    // Execute-only: a process that executes a file it may not read is made non-dumpable by the kernel, owned
    // by the user namespace that may read it (the host's, for a container with its own). So the program,
    // which runs as husk-init's uid, can neither write husk-init's memory through /proc/1/mem nor open its
    // report pipe through /proc/1/fd to forge the verdict; the program it starts is dumpable as usual.
    if (::fchmod(fd.get(), 0111) != 0) return fail_sys(errno, "fchmod", "memfd husk-init");
    if (::fcntl(fd.get(), F_ADD_SEALS, F_SEAL_SEAL | F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE) != 0)
        return fail_sys(errno, "fcntl F_ADD_SEALS", "memfd husk-init");
    return fd;
}

}  // namespace husk::init
