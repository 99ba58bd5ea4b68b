#include <string>

#include "base/fs.hpp"
#include "base/json_writer.hpp"
#include "cli/cli.hpp"

namespace husk::cli {
namespace {

// The command line of a process, arguments separated by spaces; empty when it is gone.
std::string command_of(pid_t pid) {
    auto text = read_file("/proc/" + std::to_string(pid) + "/cmdline");
    if (!text) return {};
    std::string out = *text;
    while (!out.empty() && out.back() == '\0') out.pop_back();
    for (char& c : out)
        if (c == '\0') c = ' ';
    return out;
}

}  // namespace

int verb_ps(const Globals& globals, const Args& args) {
    static constexpr Option format_flag{"format", 'f', Takes::text, "table or json", "table"};
    OptionValues values;
    int status = 0;
    if (!parse_verb("ps", "[--format table|json] ID", OptionSet().add(format_flag), {"id"}, args, values, &status))
        return status;
    std::string format = values.text("format");
    if (!values.has("id") || (format != "table" && format != "json")) {
        say("husk: ps: usage: husk ps [--format table|json] ID\n");
        return 2;
    }
    auto checked = checked_id(globals, "ps", values.text("id"));
    if (!checked) return 1;
    const std::string& id = checked->str();
    auto pids = container_pids(globals.runtime, *checked);
    if (!pids) return report(globals, "ps " + id, pids.error());
    if (format == "json") {
        // containerd's shim reads a JSON array of host pids.
        JsonWriter w;
        w.begin_array();
        for (pid_t pid : *pids) w.integer(pid);
        w.end_array();
        std::printf("%s\n", w.str().c_str());
        return 0;
    }
    std::printf("%-8s %s\n", "PID", "CMD");
    for (pid_t pid : *pids) std::printf("%-8d %s\n", pid, command_of(pid).c_str());
    return 0;
}

}  // namespace husk::cli
