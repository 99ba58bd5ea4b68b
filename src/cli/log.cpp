// Error output: once, at the top. runc's --log-format json writes {"level","msg","time"} lines; containerd and
// conmon read the msg of the last error line to tell the user why create failed.
#include <fcntl.h>
#include <unistd.h>

#include <csignal>
#include <cstdarg>
#include <cstdio>
#include <ctime>

#include "base/caller_file.hpp"
#include "base/fs.hpp"
#include "base/json_writer.hpp"
#include "cli/cli.hpp"

namespace husk::cli {
namespace {

std::FILE* message_stream = stderr;

std::string now_rfc3339() {
    std::time_t t = std::time(nullptr);
    std::tm utc{};
    gmtime_r(&t, &utc);
    char buffer[32];
    std::strftime(buffer, sizeof buffer, "%Y-%m-%dT%H:%M:%SZ", &utc);
    return buffer;
}

// Errors are one line: control characters (a newline in a container id, say) are escaped.
std::string one_line(const std::string& text) {
    std::string out;
    for (char c : text) {
        auto byte = static_cast<unsigned char>(c);
        if (byte < 0x20 || byte == 0x7f) {
            char escaped[5];
            std::snprintf(escaped, sizeof escaped, "\\x%02x", byte);
            out += escaped;
        } else {
            out += c;
        }
    }
    return out;
}

// One line per message, appended to --log through the caller-file rule (base/caller_file.hpp): no symlink followed,
// no FIFO waited on, regular files only; control characters escaped, so a message cannot forge a line.
void write_log(const Globals& globals, const char* level, const std::string& text) {
    if (globals.log_file.empty()) return;
    const std::string message = one_line(text);
    std::string line;
    if (globals.log_format == LogFormat::json) {
        JsonWriter w;
        w.begin_object().key("level").string(level).key("msg").string(message).key("time").string(now_rfc3339()).end_object();
        line = w.str() + "\n";
    } else {
        std::string escaped;
        for (char c : message) {
            if (c == '"' || c == '\\') escaped += '\\';
            escaped += c;
        }
        line = "time=\"" + now_rfc3339() + "\" level=" + level + " msg=\"" + escaped + "\"\n";
    }
    (void)append_caller_file(globals.log_file, "--log", line);
}

}  // namespace

std::FILE* messages() { return message_stream; }

void say(const char* format, ...) {
    // SIG_IGN only around the write, never inherited: hooks and the container start with SIGPIPE at default.
    struct sigaction ignore {}, previous {};
    ignore.sa_handler = SIG_IGN;
    ::sigaction(SIGPIPE, &ignore, &previous);
    std::va_list args;
    va_start(args, format);
    std::vfprintf(message_stream, format, args);
    va_end(args);
    std::fflush(message_stream);
    ::sigaction(SIGPIPE, &previous, nullptr);
}

Result<void> set_message_fd(int fd) {
    if (fd == 0 || fd == 1) return fail_msg("--message-fd " + std::to_string(fd) + ": husk's messages never go to stdin or stdout");
    if (fd == 2) return {};
    if (fd < 0 || ::fcntl(fd, F_GETFD) < 0) return fail_msg("--message-fd " + std::to_string(fd) + ": not an open fd");
    std::FILE* stream = ::fdopen(fd, "w");
    if (!stream) return fail_sys(errno, "fdopen", "--message-fd " + std::to_string(fd));
    std::setvbuf(stream, nullptr, _IONBF, 0);  // each message whole and at once, as on stderr
    message_stream = stream;
    return {};
}

int report(const Globals& globals, const std::string& context, const Error& error) {
    std::string message = one_line(context.empty() ? error.message() : context + ": " + error.message());
    say("husk: %s\n", message.c_str());
    write_log(globals, "error", message);
    return 1;
}

std::optional<ContainerId> checked_id(const Globals& globals, const char* verb, const std::string& text) {
    auto id = ContainerId::parse(text);
    if (id) return std::move(*id);
    report(globals, std::string(verb) + " " + text, id.error());
    return std::nullopt;
}

void warn(const Globals& globals, const std::string& text) {
    const std::string message = one_line(text);
    say("husk: warning: %s\n", message.c_str());
    write_log(globals, "warning", message);
}

void debug(const Globals& globals, const std::string& text) {
    if (!globals.debug) return;
    const std::string message = one_line(text);
    if (globals.log_file.empty()) say("husk: debug: %s\n", message.c_str());
    write_log(globals, "debug", message);
}

bool parse_verb(const char* verb, const char* usage, const OptionSet& options,
                std::initializer_list<std::string_view> operands, const Args& args, OptionValues& out, int* status,
                std::string* error) {
    static constexpr Option help{"help", 'h', Takes::nothing, "show this help"};
    // What operands are stored under. A verb that has --id as a flag of its own (sandbox) takes it from there.
    static constexpr Option operand_options[] = {{"id", 0, Takes::text}, {"signal", 0, Takes::text},
                                                 {"action", 0, Takes::text}};
    std::span<const Option> hidden = operand_options;
    if (options.find("id")) hidden = hidden.subspan(1);
    auto parsed = parse_options({options.options(), {&help, 1}, hidden},
                                {.names = {operands.begin(), operands.size()}}, args);
    if (!parsed) {
        const std::string message = parsed.error().message();
        say("husk: %s: %s\n", verb, message.c_str());
        if (error) *error = message;
        *status = 2;
        return false;
    }
    out = std::move(*parsed);
    if (out.has("help")) {
        const std::string caption = std::string("Usage: husk ") + verb + " " + usage + "\n\nOptions";
        OptionSet all(caption);
        all.add(help).add_set(options);
        std::printf("%s\n", all.help().c_str());
        *status = 0;
        return false;
    }
    return true;
}

}  // namespace husk::cli
