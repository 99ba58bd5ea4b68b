#include "cli/foreground_options.hpp"

#include <cstdio>

#include "base/caller_file.hpp"
#include "cli/raw_flags.hpp"

namespace husk::cli {

void add_foreground_options(OptionSet& options) {
    static constexpr Option foreground[] = {
        {"verdict", 0, Takes::text, "when the run ends, write the verdict (one JSON object: reason, exit, usage, "
                                    "security, limits; husk(8) VERDICT) to FILE, atomically; also when the config is "
                                    "refused or setup fails"},
        {"verdict-fd", 0, Takes::int_number, "the same, written to the inherited fd N in one write"},
        {"output-format", 0, Takes::text,
         "text: the program's stdout and stderr go to husk's as they are; json: husk's stdout carries JSON lines "
         "only, {\"stream\":\"stdout\"|\"stderr\",\"t\":SECONDS,\"data\":...} per chunk (\"encoding\":\"base64\" "
         "when not UTF-8), then the verdict as the last line; husk's own messages stay on stderr (husk(8) "
         "OUTPUT FORMAT)",
         "text"},
    };
    options.add(foreground);
}

Result<void> read_foreground_options(const OptionValues& values, RunOptions& run) {
    if (values.has("verdict")) run.verdict.path = values.text("verdict");
    if (values.has("verdict-fd")) run.verdict.fd = values.int_number("verdict-fd");
    const std::string format = values.text("output-format");
    if (format == "json") run.output_format = OutputFormat::json;
    else if (format != "text") return fail_msg("--output-format: must be text or json, got \"" + format + "\"");
    // Refused with the target still set where it can be, so the refusal is delivered as the verdict.
    if (!run.verdict.path.empty() && run.verdict.fd >= 0) {
        run.verdict.fd = -1;
        return fail_msg("--verdict and --verdict-fd exclude each other");
    }
    if (values.has("verdict-fd") && run.verdict.fd < 0) return fail_msg("--verdict-fd: needs an fd >= 0");
    // A path another user could steer is refused before anything runs, and no verdict goes there
    // (base/caller_file.hpp).
    if (!run.verdict.path.empty()) {
        if (auto target = open_caller_file(run.verdict.path, "--verdict"); !target) {
            run.verdict.path.clear();
            return std::unexpected(target.error());
        }
    }
    return {};
}

int refuse_run(const Globals& globals, const char* verb, const RunOptions& run, const std::string& id,
               const std::string& message) {
    say("husk: %s: %s\n", verb, message.c_str());
    if (run.verdict.wanted() || run.output_format == OutputFormat::json)
        if (auto delivered =
                deliver_refused_verdict(run.verdict, id, Error::msg(message), refusal_status, run.output_format);
            !delivered)
            report(globals, std::string(verb) + " " + id, delivered.error());
    return refusal_status;
}

std::optional<ContainerId> checked_run_id(const Globals& globals, const char* verb, const RunOptions& run,
                                          const std::string& id) {
    auto checked = ContainerId::parse(id);
    if (checked) return std::move(*checked);
    report(globals, std::string(verb) + " " + id, checked.error());
    if (run.verdict.wanted() || run.output_format == OutputFormat::json)
        if (auto delivered = deliver_refused_verdict(run.verdict, id, checked.error(), refusal_status,
                                                 run.output_format); !delivered)
            report(globals, std::string(verb) + " " + id, delivered.error());
    return std::nullopt;
}

void deliver_unparsed_refusal(const Globals& globals, const char* verb, const Args& args, const std::string& message,
                              int status) {
    RawVerdictFlags raw = scan_verdict_flags(args);
    VerdictTarget target;
    target.path = raw.verdict_path;
    if (target.path.empty()) target.fd = raw.verdict_fd;  // as when both parse: --verdict wins, and is refused
    OutputFormat format = raw.json ? OutputFormat::json : OutputFormat::text;
    if (!target.wanted() && format == OutputFormat::text) return;
    // The id is not known for sure; the verdict names none rather than a guess.
    if (auto delivered = deliver_refused_verdict(target, "", Error::msg(message), status, format); !delivered)
        report(globals, verb, delivered.error());
}

}  // namespace husk::cli
