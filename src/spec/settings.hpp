// husk's own settings beyond the runtime-spec (docs/husk.8.md, ANNOTATIONS): limits the monitor enforces, the
// network policy, the tenant, and a few switches. Each is one `run.husk.<name>` annotation, so orchestrators can
// pass it in config.json, and most are also a flag `--<name>` of run, create and sandbox: two spellings of one
// setting. Both are read by the same parser into the same typed field, and the table of settings (settings.cpp)
// is the one place that names them: the CLI builds its flags from it, and the effective config a container is
// created with holds what the flags set written back as their annotations (docs/ARCHITECTURE.md, "The effective
// config"). An unknown `run.husk.*` key or a malformed value is an error naming it (fail closed); other
// annotations are not husk's business.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "husk/error.hpp"
#include "husk/settings.hpp"
#include "spec/net_allow.hpp"

namespace husk::spec {

inline constexpr std::string_view husk_annotation_prefix = "run.husk.";

// How a setting is spelled on the command line of run, create and sandbox.
enum class FlagKind {
    none,      // annotation only
    value,     // --name VALUE
    repeated,  // --name VALUE, repeatable: the values join into the annotation's comma-separated list
    presence,  // --name: the annotation "true"
};

// One row of the table: the annotation `run.husk.<name>` and the flag `--<name>`.
struct Setting {
    std::string_view name;
    FlagKind flag;
    const char* help;  // the flag's help (husk <verb> --help); the annotation's name is added to it
    // Reads a value into its field. The error is the reason alone; the caller names the annotation or the flag.
    Result<void> (*parse)(std::string_view value, HuskSettings& into);
    // The field as its annotation's value, parse's inverse; nothing when the field is absent.
    std::optional<std::string> (*render)(const HuskSettings& settings);
    // Copies the field from `from` when it is there.
    void (*take)(HuskSettings& into, const HuskSettings& from);

    std::string annotation() const { return std::string(husk_annotation_prefix) + std::string(name); }
};

// Every setting, in the order the documentation lists them.
std::span<const Setting> husk_settings();

// Reads every run.husk.* annotation. Errors name the annotation: `annotations["run.husk.timeout"]: ...`.
Result<HuskSettings> parse_husk_annotations(const std::map<std::string, std::string>& annotations);

// A flag's value (the values of a repeated flag joined by commas, "true" for a flag given alone) into its
// field. Errors name the flag: `--timeout: must be greater than 0`.
Result<void> parse_setting_flag(const Setting& setting, std::string_view value, HuskSettings& into);

// The settings given on the command line win over those of config.json, field by field.
HuskSettings with_overrides(HuskSettings settings, const HuskSettings& overrides);

// What must hold between settings whatever spelled them (net-ops-kill needs a budget to stop at).
Result<void> check_settings(const HuskSettings& settings);

// The annotations with each setting written as `settings` has it, where they would read otherwise: a setting the
// annotations already spell (in any syntax) keeps their text, every other one gets its annotation. Then
// parse_husk_annotations of the result is `settings` (each field absent from `settings` is absent there too).
std::map<std::string, std::string> annotations_of(std::map<std::string, std::string> annotations,
                                                  const HuskSettings& settings);

}  // namespace husk::spec
