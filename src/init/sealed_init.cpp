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
    if (::fchmod(fd.get(), 0555) != 0) return fail_sys(errno, "fchmod", "memfd husk-init");
    if (::fcntl(fd.get(), F_ADD_SEALS, F_SEAL_SEAL | F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE) != 0)
        return fail_sys(errno, "fcntl F_ADD_SEALS", "memfd husk-init");
    return fd;
}

}  // namespace husk::init
