#include "base/signal_names.hpp"

#include <csignal>
#include <charconv>
#include <optional>
#include <tuple>
#include <string>

namespace husk {
namespace {

struct Named {
    const char* name;
    int number;
};
constexpr Named names[] = {
    {"HUP", SIGHUP},     {"INT", SIGINT},       {"QUIT", SIGQUIT},   {"ILL", SIGILL},     {"TRAP", SIGTRAP},
    {"ABRT", SIGABRT},   {"IOT", SIGIOT},       {"BUS", SIGBUS},     {"FPE", SIGFPE},     {"KILL", SIGKILL},
    {"USR1", SIGUSR1},   {"SEGV", SIGSEGV},     {"USR2", SIGUSR2},   {"PIPE", SIGPIPE},   {"ALRM", SIGALRM},
    {"TERM", SIGTERM},   {"STKFLT", SIGSTKFLT}, {"CHLD", SIGCHLD},   {"CONT", SIGCONT},   {"STOP", SIGSTOP},
    {"TSTP", SIGTSTP},   {"TTIN", SIGTTIN},     {"TTOU", SIGTTOU},   {"URG", SIGURG},     {"XCPU", SIGXCPU},
    {"XFSZ", SIGXFSZ},   {"VTALRM", SIGVTALRM}, {"PROF", SIGPROF},   {"WINCH", SIGWINCH}, {"IO", SIGIO},
    {"POLL", SIGPOLL},   {"PWR", SIGPWR},       {"SYS", SIGSYS},
};

std::optional<int> to_number(std::string_view text) {
    int value = 0;
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
    return value;
}

}  // namespace

Result<int> parse_signal(std::string_view text) {
    auto unknown = [&] { return fail_msg("unknown signal \"" + std::string(text) + "\""); };
    if (text.empty()) return unknown();
    if (auto number = to_number(text)) {
        if (*number <= 0 || *number > SIGRTMAX) return unknown();
        return *number;
    }
    std::string_view name = text;
    if (name.substr(0, 3) == "SIG") name.remove_prefix(3);
    for (const Named& n : names)
        if (name == n.name) return n.number;
    // RTMIN, RTMIN+n, RTMAX, RTMAX-n
    for (auto [base, sign, prefix] : {std::tuple{SIGRTMIN, 1, std::string_view("RTMIN")},
                                      std::tuple{SIGRTMAX, -1, std::string_view("RTMAX")}}) {
        if (name.substr(0, prefix.size()) != prefix) continue;
        std::string_view rest = name.substr(prefix.size());
        if (rest.empty()) return base;
        if (rest[0] != (sign > 0 ? '+' : '-')) return unknown();
        auto offset = to_number(rest.substr(1));
        int value = base + sign * (offset ? *offset : -1000);
        if (!offset || value < SIGRTMIN || value > SIGRTMAX) return unknown();
        return value;
    }
    return unknown();
}

std::string signal_name(int signal) {
    for (const Named& n : names)
        if (n.number == signal && std::string_view(n.name) != "IOT" && std::string_view(n.name) != "POLL")
            return std::string("SIG") + n.name;
    if (signal >= SIGRTMIN && signal <= SIGRTMAX)
        return signal == SIGRTMIN ? "SIGRTMIN" : "SIGRTMIN+" + std::to_string(signal - SIGRTMIN);
    return std::to_string(signal);
}

}  // namespace husk
