// Running commands for the tests: fork/exec with stdio in files, extra fds, a timeout through a pidfd.
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "harness.hpp"

extern char** environ;

namespace husk::test {
namespace {

int open_or_throw(const std::string& path, int flags) {
    int fd = ::open(path.c_str(), flags | O_CLOEXEC, 0644);
    if (fd < 0) throw std::runtime_error("open " + path + ": " + std::strerror(errno));
    return fd;
}

std::vector<char*> c_strings(std::vector<std::string>& strings) {
    std::vector<char*> out;
    for (std::string& s : strings) out.push_back(s.data());
    out.push_back(nullptr);
    return out;
}

// The test's environment with `extra` (NAME=value) added; an extra entry replaces one of the same name.
std::vector<std::string> environment_with(const std::vector<std::string>& extra) {
    std::vector<std::string> out;
    for (char** e = environ; *e; ++e) {
        std::string_view entry(*e);
        bool replaced = false;
        for (const std::string& x : extra) {
            size_t eq = x.find('=');
            if (eq != std::string::npos && entry.substr(0, eq + 1) == std::string_view(x).substr(0, eq + 1)) replaced = true;
        }
        if (!replaced) out.emplace_back(entry);
    }
    out.insert(out.end(), extra.begin(), extra.end());
    return out;
}

std::string clip(const std::string& text, size_t max = 3000) {
    return text.size() <= max ? text : text.substr(0, max) + "...[" + std::to_string(text.size()) + " bytes]";
}

}  // namespace

std::string Output::current_out() const { return read_file(out_path); }

std::string Output::describe() const {
    std::ostringstream s;
    if (timed_out) s << "TIMED OUT";
    else s << "exit " << exit_code;
    s << " after " << elapsed.count() << " ms; stdout: " << clip(out) << "; stderr: " << clip(err);
    return s.str();
}

Process::Process(pid_t pid, int pidfd, std::string out_path, std::string err_path, Ms timeout)
    : pid_(pid), pidfd_(pidfd), out_path_(std::move(out_path)), err_path_(std::move(err_path)), timeout_(timeout),
      started_(std::chrono::steady_clock::now()) {}

Process::Process(Process&& other) noexcept
    : pid_(std::exchange(other.pid_, -1)), pidfd_(std::exchange(other.pidfd_, -1)),
      out_path_(std::move(other.out_path_)), err_path_(std::move(other.err_path_)), timeout_(other.timeout_),
      started_(other.started_) {}

Process::~Process() {
    if (pid_ > 0) {
        ::kill(pid_, SIGKILL);
        ::waitpid(pid_, nullptr, 0);
    }
    if (pidfd_ >= 0) ::close(pidfd_);
}

std::string Process::current_out() const { return read_file(out_path_); }

Output Process::wait() {
    if (pid_ <= 0) throw std::logic_error("Process::wait called twice");
    Output result;
    auto deadline = started_ + timeout_;
    for (;;) {
        auto left = std::chrono::duration_cast<Ms>(deadline - std::chrono::steady_clock::now()).count();
        pollfd p{pidfd_, POLLIN, 0};
        int n = ::poll(&p, 1, static_cast<int>(std::max<long long>(left, 0)));
        if (n < 0 && errno == EINTR) continue;
        if (n == 0) {
            result.timed_out = true;
            ::kill(pid_, SIGKILL);  // our own child, by pid
        }
        break;
    }
    int status = 0;
    while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {}
    pid_ = -1;
    result.elapsed = std::chrono::duration_cast<Ms>(std::chrono::steady_clock::now() - started_);
    if (!result.timed_out) result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    result.out_path = out_path_;
    result.err_path = err_path_;
    result.out = read_file(out_path_);
    result.err = read_file(err_path_);
    return result;
}

Process spawn(const std::vector<std::string>& argv, const SpawnOptions& options, const std::string& io_prefix) {
    if (argv.empty()) throw std::invalid_argument("spawn: empty argv");
    std::string out_path = io_prefix + ".out", err_path = io_prefix + ".err";
    int in_fd = -1;
    if (options.stdin_data.empty()) {
        in_fd = open_or_throw("/dev/null", O_RDONLY);
    } else {
        write_file(io_prefix + ".in", options.stdin_data);
        in_fd = open_or_throw(io_prefix + ".in", O_RDONLY);
    }
    int out_fd = open_or_throw(out_path, O_WRONLY | O_CREAT | O_TRUNC);
    int err_fd = open_or_throw(err_path, O_WRONLY | O_CREAT | O_TRUNC);

    std::vector<std::string> args = argv, env = environment_with(options.env);
    std::vector<char*> c_argv = c_strings(args), c_env = c_strings(env);
    std::vector<int> staged(options.extra_fds.size(), -1);

    pid_t pid = ::fork();
    if (pid < 0) throw std::runtime_error(std::string("fork: ") + std::strerror(errno));
    if (pid == 0) {
        // The child: only system calls from here on.
        if (options.terminal >= 0) {
            if (::setsid() < 0 || ::ioctl(options.terminal, TIOCSCTTY, 0) != 0) ::_exit(126);
            in_fd = out_fd = err_fd = options.terminal;
        }
        if (::dup2(in_fd, 0) < 0 || ::dup2(out_fd, 1) < 0 || ::dup2(err_fd, 2) < 0) ::_exit(126);
        // Move the extra fds out of the way first, so placing one never clobbers another.
        for (size_t i = 0; i < staged.size(); ++i) staged[i] = ::fcntl(options.extra_fds[i], F_DUPFD_CLOEXEC, 1000);
        for (size_t i = 0; i < staged.size(); ++i)
            if (staged[i] < 0 || ::dup2(staged[i], static_cast<int>(3 + i)) < 0) ::_exit(126);  // dup2 clears CLOEXEC
        if (!options.cwd.empty() && ::chdir(options.cwd.c_str()) != 0) ::_exit(126);
        sigset_t none;
        sigemptyset(&none);
        ::sigprocmask(SIG_SETMASK, &none, nullptr);
        ::execve(c_argv[0], c_argv.data(), c_env.data());
        ::_exit(127);
    }
    ::close(in_fd);
    ::close(out_fd);
    ::close(err_fd);
    int pidfd = static_cast<int>(::syscall(SYS_pidfd_open, pid, 0));
    if (pidfd < 0) {
        ::kill(pid, SIGKILL);
        ::waitpid(pid, nullptr, 0);
        throw std::runtime_error(std::string("pidfd_open: ") + std::strerror(errno));
    }
    return Process(pid, pidfd, out_path, err_path, options.timeout);
}

std::string read_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

void write_file(const std::string& path, std::string_view content, unsigned mode) {
    int fd = open_or_throw(path, O_WRONLY | O_CREAT | O_TRUNC);
    for (size_t off = 0; off < content.size();) {
        ssize_t n = ::write(fd, content.data() + off, content.size() - off);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
            ::close(fd);
            throw std::runtime_error("write " + path + ": " + std::strerror(errno));
        }
        off += static_cast<size_t>(n);
    }
    ::fchmod(fd, mode);
    ::close(fd);
}

std::vector<std::string> lines(const std::string& text) {
    std::vector<std::string> out;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) {
        if (!line.empty() && line.back() == '\r') line.pop_back();
        if (line.find_first_not_of(" \t") != std::string::npos) out.push_back(line);
    }
    return out;
}

Json last_json_line(const std::string& text) {
    std::vector<std::string> all = lines(text);
    for (auto it = all.rbegin(); it != all.rend(); ++it)
        if (!it->empty() && it->front() == '{') return Json::parse(*it);
    throw std::runtime_error("no JSON line in output: " + clip(text));
}

std::string to_lower(std::string text) {
    for (char& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return text;
}

std::string join_lines(const std::vector<std::string>& items) {
    std::string out;
    for (const std::string& item : items) out += item + "\n";
    return out;
}

// /proc/PID/stat: "pid (comm) state ppid ..."; comm may contain spaces, so parse after the last ')'.
static std::vector<std::string> stat_fields(pid_t pid) {
    std::string stat = read_file("/proc/" + std::to_string(pid) + "/stat");
    size_t close = stat.rfind(')');
    if (close == std::string::npos) return {};
    std::istringstream in(stat.substr(close + 2));
    std::vector<std::string> fields;
    for (std::string f; in >> f;) fields.push_back(f);
    return fields;  // fields[0] is field 3 (state)
}

unsigned long long proc_start_time(pid_t pid) {
    std::vector<std::string> f = stat_fields(pid);
    return f.size() > 19 ? std::stoull(f[19]) : 0;
}

pid_t proc_parent(pid_t pid) {
    std::vector<std::string> f = stat_fields(pid);
    return f.size() > 1 ? static_cast<pid_t>(std::stol(f[1])) : -1;
}

bool process_alive(pid_t pid) {
    std::vector<std::string> f = stat_fields(pid);
    return !f.empty() && f[0] != "Z" && f[0] != "X";
}

}  // namespace husk::test
