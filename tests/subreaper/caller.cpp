// subreaper-caller: plays containerd's runc shim and conmon for the integration tests. Both are child
// subreapers (PR_SET_CHILD_SUBREAPER, prctl(2)) that run `runtime create --pid-file F` and `runtime start`,
// read init's pid from F and wait for THAT pid, expecting it to have become their child
// (docs/clients.md, "What both clients expect of a runtime"). This program does the same and prints what it saw as
// JSON lines on stdout:
//   {"created":PID,"ppid":PPID}                  after create (PPID: init's parent, from /proc/PID/stat)
//   {"started":PID}                              after start
//   {"pid":PID,"exited":true,"code":N,"others":K}      once init is reaped (K: other children reaped,
//   {"pid":PID,"exited":false,"signal":S,"others":K}   i.e. the husk monitor, waited for up to 10 s)
//   {"error":"...","errno":E}                    on failure, exit status 1
// Usage: subreaper-caller [--reap-delay-ms N] HUSK ROOT BUNDLE PID_FILE ID
//        subreaper-caller --exec HUSK ROOT PID_FILE ID ARGS...
// --exec: `husk exec --detach --pid-file PID_FILE ID ARGS...` instead of create and start, as the shim and
// conmon run it; prints {"execed":PID,"ppid":PPID} and then the same result line for that pid.
// --reap-delay-ms N: after init has exited, leave it a zombie for N ms before reaping it, like a busy shim.
#include <sys/prctl.h>
#include <sys/wait.h>
#include <fcntl.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

// One line, written with write(2) so nothing sits in a stdio buffer when the test reads the file.
void emit(const std::string& line) {
    std::string out = line + "\n";
    for (size_t off = 0; off < out.size();) {
        ssize_t n = ::write(1, out.data() + off, out.size() - off);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return;
        off += static_cast<size_t>(n);
    }
}

[[noreturn]] void fail(const std::string& what, int err) {
    std::string quoted;
    for (char c : what) quoted += c == '"' || c == '\\' ? std::string("\\") + c : std::string(1, c);
    emit("{\"error\":\"" + quoted + "\",\"errno\":" + std::to_string(err) + "}");
    std::exit(1);
}

std::string read_text(const std::string& path) {
    std::string out;
    int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return out;
    char buf[4096];
    for (ssize_t n; (n = ::read(fd, buf, sizeof buf)) > 0;) out.append(buf, static_cast<size_t>(n));
    ::close(fd);
    return out;
}

// Field 4 of /proc/PID/stat (proc(5)); the command name may contain spaces, so parse after the last ')'.
long parent_of(pid_t pid) {
    std::string stat = read_text("/proc/" + std::to_string(pid) + "/stat");
    size_t close = stat.rfind(')');
    if (close == std::string::npos || close + 4 > stat.size()) return -1;
    return std::strtol(stat.c_str() + close + 4, nullptr, 10);  // ") S PPID"
}

// Runs argv as a child and waits for exactly that child; other children (the monitor) stay unreaped.
int run(std::vector<std::string> argv) {
    std::vector<char*> c_argv;
    for (std::string& arg : argv) c_argv.push_back(arg.data());
    c_argv.push_back(nullptr);
    pid_t pid = ::fork();
    if (pid < 0) fail("fork", errno);
    if (pid == 0) {
        ::execv(c_argv[0], c_argv.data());
        ::_exit(127);
    }
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0)
        if (errno != EINTR) fail("waitpid " + argv[0], errno);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

void sleep_ms(long ms) {
    timespec left{ms / 1000, (ms % 1000) * 1000000};
    while (::nanosleep(&left, &left) != 0 && errno == EINTR) {
    }
}

// Reaps whatever other children we have (the monitor, reparented to us) for up to 10 s.
int reap_others() {
    int reaped = 0;
    for (int waited = 0; waited < 10000; waited += 10) {
        pid_t pid = ::waitpid(-1, nullptr, WNOHANG);
        if (pid > 0) {
            ++reaped;
            continue;
        }
        if (pid < 0 && errno == ECHILD) break;
        sleep_ms(10);
    }
    return reaped;
}

}  // namespace

// Waits for exactly `pid`, which must be our child by now, and prints the result line.
void wait_and_report(pid_t pid) {
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0)
        if (errno != EINTR) fail("waitpid for " + std::to_string(pid), errno);
    int others = reap_others();
    std::string result = "{\"pid\":" + std::to_string(pid);
    if (WIFEXITED(status)) result += ",\"exited\":true,\"code\":" + std::to_string(WEXITSTATUS(status));
    else result += ",\"exited\":false,\"signal\":" + std::to_string(WTERMSIG(status));
    emit(result + ",\"others\":" + std::to_string(others) + "}");
}

int exec_mode(int argc, char** argv) {
    if (argc < 7) fail("usage: subreaper-caller --exec HUSK ROOT PID_FILE ID ARGS...", EINVAL);
    std::string pid_file = argv[4];
    std::vector<std::string> command = {argv[2], "--root", argv[3], "exec", "--detach", "--pid-file", pid_file, argv[5]};
    for (int i = 6; i < argc; ++i) command.push_back(argv[i]);
    if (::prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0) fail("prctl PR_SET_CHILD_SUBREAPER", errno);
    if (int status = run(command); status != 0) fail("husk exec exited " + std::to_string(status), 0);
    pid_t pid = static_cast<pid_t>(std::atol(read_text(pid_file).c_str()));
    if (pid <= 0) fail("no pid in " + pid_file, 0);
    emit("{\"execed\":" + std::to_string(pid) + ",\"ppid\":" + std::to_string(parent_of(pid)) + "}");
    wait_and_report(pid);
    return 0;
}

int main(int argc, char** argv) {
    if (argc > 1 && std::strcmp(argv[1], "--exec") == 0) return exec_mode(argc, argv);
    long reap_delay_ms = 0;
    int first = 1;
    if (argc > 2 && std::strcmp(argv[1], "--reap-delay-ms") == 0) {
        reap_delay_ms = std::atol(argv[2]);
        first = 3;
    }
    if (argc - first != 5) fail("usage: subreaper-caller [--reap-delay-ms N] HUSK ROOT BUNDLE PID_FILE ID", EINVAL);
    std::string husk = argv[first], root = argv[first + 1], bundle = argv[first + 2], pid_file = argv[first + 3],
                id = argv[first + 4];

    if (::prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0) fail("prctl PR_SET_CHILD_SUBREAPER", errno);
    if (int status = run({husk, "--root", root, "create", "--bundle", bundle, "--pid-file", pid_file, id}); status != 0)
        fail("husk create exited " + std::to_string(status), 0);
    pid_t pid = static_cast<pid_t>(std::atol(read_text(pid_file).c_str()));
    if (pid <= 0) fail("no pid in " + pid_file, 0);
    emit("{\"created\":" + std::to_string(pid) + ",\"ppid\":" + std::to_string(parent_of(pid)) + "}");
    if (int status = run({husk, "--root", root, "start", id}); status != 0)
        fail("husk start exited " + std::to_string(status), 0);
    emit("{\"started\":" + std::to_string(pid) + "}");

    if (reap_delay_ms > 0) {
        siginfo_t info{};
        while (::waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOWAIT) != 0)
            if (errno != EINTR) fail("waitid WNOWAIT", errno);
        sleep_ms(reap_delay_ms);
    }
    wait_and_report(pid);
    return 0;
}
