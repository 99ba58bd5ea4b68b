// The UTS names of a container: config.md "Hostname" and "Domainname", set once by the container's init in its
// uts namespace (a process `husk exec` adds joins that namespace and finds them set).
#pragma once

#include <string>

#include "husk/error.hpp"
#include "husk/spec.hpp"

namespace husk::ns {

struct UtsPlan {
    std::string hostname, domainname;  // empty: left as the namespace has it
};

UtsPlan prepare_uts(const spec::Spec& spec);

// Child side: sethostname(2), then setdomainname(2), each only when its name is given. spec/validate.cpp has
// already refused a name without a uts namespace of the container's own.
Result<void> apply_uts(const UtsPlan& plan) noexcept;

}  // namespace husk::ns
