#include "cli/foreground_options.hpp"

#include "cli/raw_flags.hpp"

namespace husk::cli {

void add_output_format_option(po::options_description& options) {
    options.add_options()
        ("output-format", po::value<std::string>()->default_value("text"),
         "text: the program's stdout and stderr go to husk's as they are; json: husk's stdout carries JSON lines "
         "only, {\"stream\":\"stdout\"|\"stderr\",\"t\":SECONDS,\"data\":...} per chunk (\"encoding\":\"base64\" "
         "when not UTF-8), then the verdict as the last line; husk's own messages stay on stderr (husk(8) "
         "OUTPUT FORMAT)");
}

Result<OutputFormat> read_output_format(const po::variables_map& vm) {
    const std::string& format = vm["output-format"].as<std::string>();
    if (format == "text") return OutputFormat::text;
    if (format == "json") return OutputFormat::json;
    return fail_msg("--output-format: must be text or json, got \"" + format + "\"");
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
