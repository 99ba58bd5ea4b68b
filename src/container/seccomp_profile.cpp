#include "husk/container.hpp"
#include "seccomp/default_profile.hpp"

namespace husk {

std::string default_seccomp_profile_json() { return seccomp::seccomp_json(seccomp::default_profile()); }

}  // namespace husk
