#include "cli/cli.hpp"
#include "cli/create_options.hpp"
#include "cli/foreground_options.hpp"

namespace husk::cli {

int verb_run(const Globals& globals, const Args& args) {
    static constexpr Option run_flags[] = {
        {"detach", 'd', Takes::nothing, "return once the container has started"},
        {"keep", 0, Takes::nothing, "keep the container's state after it stops (husk state still answers)"},
    };
    OptionSet options = create_options();
    options.add(run_flags);
    add_foreground_options(options);
    OptionValues values;
    int status = 0;
    std::string usage_error;
    if (!parse_verb("run", "[options] ID", options, {"id"}, args, values, &status, &usage_error)) {
        if (status != 0) deliver_unparsed_refusal(globals, "run", args, usage_error, status);
        return status;
    }
    RunOptions run;
    const std::string id = values.text("id");
    // A refusal still delivers the one verdict the caller waits for (with json, also as the stream's one line).
    auto refuse = [&](const std::string& message) { return refuse_run(globals, "run", run, id, message); };
    if (auto read = read_foreground_options(values, run); !read) return refuse(read.error().message());
    if (run.verdict.wanted() && values.has("detach")) return refuse("--verdict needs a foreground run, not --detach");
    if (run.output_format == OutputFormat::json && values.has("detach"))
        return refuse("--output-format json needs a foreground run, not --detach");
    auto read = read_create_options(values);
    if (!read) return refuse(read.error().message());
    run.create = std::move(*read);
    if (id.empty()) return refuse("a container id is required");
    auto checked = checked_run_id(globals, "run", run, id);
    if (!checked) return refusal_status;
    const std::string context = "run " + id;
    run.create.warn = [&](const std::string& message) { warn(globals, context + ": " + message); };
    run.detach = values.has("detach");
    run.keep = values.has("keep");
    auto result = run_container(globals.runtime, *checked, run);
    if (!result) {
        report(globals, context, result.error());
        return run.detach ? 1 : error_status(result.error());  // --detach is create's, whose errors are all 1
    }
    for (const auto& warning : result->warnings) warn(globals, context + ": " + warning);
    if (!result->failure.empty()) report(globals, context, Error::msg(result->failure));
    return result->exit_code;
}

}  // namespace husk::cli
