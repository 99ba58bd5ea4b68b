#include "husk/container.hpp"
#include "seccomp/default_profile.hpp"

namespace husk {

std::string default_seccomp_profile_json(bool pretty) {
    return seccomp::seccomp_json(seccomp::default_profile(), pretty);
}

}  // namespace husk
