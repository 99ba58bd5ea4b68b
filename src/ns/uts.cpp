#include "ns/uts.hpp"

#include <unistd.h>

#include <cerrno>

namespace husk::ns {

UtsPlan prepare_uts(const spec::Spec& spec) {
    return UtsPlan{spec.hostname, spec.domainname};
}

Result<void> apply_uts(const UtsPlan& plan) noexcept {
    if (!plan.hostname.empty() && ::sethostname(plan.hostname.data(), plan.hostname.size()) != 0)
        return fail_sys(errno, "sethostname", plan.hostname);
    if (!plan.domainname.empty() && ::setdomainname(plan.domainname.data(), plan.domainname.size()) != 0)
        return fail_sys(errno, "setdomainname", plan.domainname);
    return {};
}

}  // namespace husk::ns
