// The seccomp profile husk ships for untrusted code: a deny-list over an allowing default, as an OCI
// linux.seccomp object that the ordinary parser and compiler take (docs/security.md, "The default profile").
#pragma once

#include <string>

#include "husk/spec.hpp"

namespace husk::seccomp {

spec::Seccomp default_profile();

// linux.seccomp as config.json spells it, pretty-printed, for users to read and adapt.
std::string seccomp_json(const spec::Seccomp& profile, bool pretty = true);

}  // namespace husk::seccomp
