#include "cli/cli.hpp"
#include "cli/create_options.hpp"
#include "cli/foreground_options.hpp"

namespace husk::cli {

int verb_run(const Globals& globals, const Args& args) {
    po::options_description options = create_options_description();
    options.add_options()
        ("detach,d", "return once the container has started")
        ("keep", "keep the container's state after it stops (husk state still answers)");
    add_foreground_options(options);
    po::positional_options_description positional;
    positional.add("id", 1);
    po::variables_map vm;
    int status = 0;
    std::string usage_error;
    if (!parse_verb("run", "[options] ID", options, positional, args, vm, &status, &usage_error)) {
        if (status != 0) deliver_unparsed_refusal(globals, "run", args, usage_error, status);
        return status;
    }
    RunOptions run;
    const std::string id = vm.count("id") ? vm["id"].as<std::string>() : "";
    // A refusal still delivers the one verdict the caller waits for (with json, also as the stream's one line).
    auto refuse = [&](const std::string& message) { return refuse_run(globals, "run", run, id, message); };
    if (auto read = read_foreground_options(vm, run); !read) return refuse(read.error().message());
    if (run.verdict.wanted() && vm.count("detach")) return refuse("--verdict needs a foreground run, not --detach");
    if (run.output_format == OutputFormat::json && vm.count("detach"))
        return refuse("--output-format json needs a foreground run, not --detach");
    auto read = read_create_options(vm);
    if (!read) return refuse(read.error().message());
    run.create = std::move(*read);
    if (id.empty()) return refuse("a container id is required");
    auto checked = checked_run_id(globals, "run", run, id);
    if (!checked) return refusal_status;
    const std::string context = "run " + id;
    run.create.warn = [&](const std::string& message) { warn(globals, context + ": " + message); };
    run.detach = vm.count("detach") > 0;
    run.keep = vm.count("keep") > 0;
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
