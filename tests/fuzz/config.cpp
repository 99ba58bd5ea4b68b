// Fuzz target: config.json as `husk create` reads it (parse, validate, run.husk.* settings), then linux.seccomp
// compiled to BPF by libseccomp, as prepare_container does for a valid config. A valid config must also come back
// from its effective form (the text create stores, docs/ARCHITECTURE.md "The effective config") with the same
// settings and annotations: anything else aborts, which the fuzzer reports as a crash.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "base/json_tree.hpp"
#include "seccomp/filter.hpp"
#include "spec/config_writer.hpp"
#include "spec/parse.hpp"
#include "spec/settings.hpp"
#include "spec/validate.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    auto tree = husk::parse_json_tree(text);
    if (!tree) return 0;
    auto spec = husk::spec::parse_config(*tree);
    if (!spec) return 0;
    auto settings = husk::spec::validate(*spec);
    if (!settings) return 0;
    auto annotations = husk::spec::annotations_of(spec->annotations, *settings);
    auto stored = husk::spec::config_with_annotations(*tree, annotations);
    if (!stored) std::abort();
    auto again = husk::spec::parse_config(*stored);
    if (!again || again->annotations != annotations) std::abort();
    auto settings_again = husk::spec::validate(*again);
    if (!settings_again || *settings_again != *settings) std::abort();
    if (spec->linux && spec->linux->seccomp) {
        husk::seccomp::SeccompOptions options;
        if (settings->seccomp_skip_unknown.value_or(false))
            options.unknown_syscalls = husk::seccomp::UnknownSyscalls::skip_allowed;
        (void)husk::seccomp::prepare_seccomp(*spec->linux->seccomp, options);
    }
    return 0;
}
