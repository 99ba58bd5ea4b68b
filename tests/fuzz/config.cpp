// Fuzz target: config.json as `husk create` reads it (parse, validate, run.husk.* annotations), then
// linux.seccomp compiled to BPF by libseccomp, as prepare_container does for a valid config.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "seccomp/filter.hpp"
#include "spec/annotations.hpp"
#include "spec/parse.hpp"
#include "spec/validate.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    auto spec = husk::spec::parse_config(std::string_view(reinterpret_cast<const char*>(data), size));
    if (!spec) return 0;
    auto annotations = husk::spec::parse_husk_annotations(spec->annotations);
    if (!husk::spec::validate(*spec) || !annotations) return 0;
    if (spec->linux && spec->linux->seccomp) {
        husk::seccomp::SeccompOptions options;
        if (annotations->seccomp_skip_unknown) options.unknown_syscalls = husk::seccomp::UnknownSyscalls::skip_allowed;
        (void)husk::seccomp::prepare_seccomp(*spec->linux->seccomp, options);
    }
    return 0;
}
