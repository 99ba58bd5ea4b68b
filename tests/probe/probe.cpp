// probe: a small static program that runs inside test containers and prints ONE JSON object on stdout
// describing what it sees, so integration tests can assert from inside the container.
// Usage: probe report | exit N | sleep SECONDS | signal-self SIG | write PATH | open PATH | read PATH |
//        mknod PATH c|b MAJ MIN | stat PATH | ignore-term sleep SECONDS | spam BYTES | fork COUNT | now |
//        exe-of-parent | burn MS | net ... | serve (net.cpp) | hold MIB SECONDS
// Errors are JSON too: {"error":"...","errno":E}, exit status 1.
#include <dirent.h>
#include <fcntl.h>
#include <net/if.h>
#include <sched.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "net.hpp"

extern char** environ;

namespace {

// Minimal JSON object builder: values are appended in order, commas handled by `sep`.
class Json {
public:
    Json& begin(char c) { sep(); out_ += c; return *this; }
    Json& end(char c) { out_ += c; return *this; }
    Json& key(const char* k) { sep(); quote(k); out_ += ':'; return *this; }
    Json& str(const std::string& s) { sep(); quote(s); return *this; }
    Json& num(long long v) { sep(); out_ += std::to_string(v); return *this; }
    Json& unum(unsigned long long v) { sep(); out_ += std::to_string(v); return *this; }
    Json& dbl(double v) { char b[64]; snprintf(b, sizeof b, "%.6f", v); sep(); out_ += b; return *this; }
    Json& boolean(bool v) { sep(); out_ += v ? "true" : "false"; return *this; }
    // Writes the whole object and a newline with write(2): no stdio buffering surprises at exit.
    void emit() {
        out_ += '\n';
        for (size_t off = 0; off < out_.size();) {
            ssize_t n = write(1, out_.data() + off, out_.size() - off);
            if (n < 0 && errno == EINTR) continue;
            if (n <= 0) return;
            off += size_t(n);
        }
    }

private:
    // A comma unless this value opens the document, a container, or follows its key.
    void sep() { if (!out_.empty() && out_.back() != '{' && out_.back() != '[' && out_.back() != ':') out_ += ','; }
    void quote(const std::string& s) {
        out_ += '"';
        for (unsigned char c : s) {
            if (c == '"' || c == '\\') { out_ += '\\'; out_ += char(c); }
            else if (c == '\n') out_ += "\\n";
            else if (c < 0x20 || c == 0x7f) { char b[8]; snprintf(b, sizeof b, "\\u%04x", c); out_ += b; }
            else out_ += char(c);
        }
        out_ += '"';
    }
    std::string out_;
};

[[noreturn]] void fail(const char* what, int err) {
    Json j;
    j.begin('{').key("error").str(what).key("errno").num(err).end('}').emit();
    _exit(1);
}

// Reads a whole (small, proc-style) file; returns false and sets errno on failure.
bool read_text(const char* path, std::string& out) {
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return false;
    char buf[4096];
    for (;;) {
        ssize_t n = read(fd, buf, sizeof buf);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) { int e = errno; close(fd); errno = e; return false; }
        if (n == 0) break;
        out.append(buf, size_t(n));
        if (out.size() > (1u << 20)) break;
    }
    close(fd);
    return true;
}

std::string read_link(const std::string& path) {
    char buf[4096];
    ssize_t n = readlink(path.c_str(), buf, sizeof buf - 1);
    return n < 0 ? std::string("?") : std::string(buf, size_t(n));
}

// The value of "Name:\t..." in /proc/self/status.
std::string status_field(const std::string& status, const char* name) {
    std::string needle = std::string("\n") + name + ":";
    size_t at = status.find(needle);
    if (at == std::string::npos) return {};
    at += needle.size();
    while (at < status.size() && (status[at] == '\t' || status[at] == ' ')) ++at;
    return status.substr(at, status.find('\n', at) - at);
}

// Splits on a separator; empty fields are kept.
size_t split(const std::string& s, char sep, std::string* fields, size_t max) {
    size_t n = 0, start = 0;
    while (n < max) {
        size_t end = s.find(sep, start);
        fields[n++] = s.substr(start, end == std::string::npos ? std::string::npos : end - start);
        if (end == std::string::npos) break;
        start = end + 1;
    }
    return n;
}

bool loopback_up() {
    int s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (s < 0) return false;
    ifreq ifr{};
    strncpy(ifr.ifr_name, "lo", IFNAMSIZ - 1);
    bool up = ioctl(s, SIOCGIFFLAGS, &ifr) == 0 && (ifr.ifr_flags & IFF_UP);
    close(s);
    return up;
}

void report_mounts(Json& j) {
    std::string text, line, f[64];
    read_text("/proc/self/mountinfo", text);
    j.key("mounts").begin('[');
    size_t pos = 0;
    while (pos < text.size()) {
        size_t nl = text.find('\n', pos);
        line = text.substr(pos, nl - pos);
        pos = nl == std::string::npos ? text.size() : nl + 1;
        size_t n = split(line, ' ', f, 64), dash = 6;
        while (dash < n && f[dash] != "-") ++dash;
        if (dash + 2 >= n) continue;  // not a mountinfo line
        j.begin('{').key("id").num(atoll(f[0].c_str())).key("dest").str(f[4]).key("options").str(f[5]).key("type").str(f[dash + 1])
            .key("source").str(f[dash + 2]).key("super").str(dash + 3 < n ? f[dash + 3] : "").end('}');
    }
    j.end(']');
}

void report_fds(Json& j) {
    j.key("fds").begin('[');
    DIR* dir = opendir("/proc/self/fd");
    if (dir) {
        while (dirent* e = readdir(dir)) {
            if (e->d_name[0] == '.') continue;
            int fd = atoi(e->d_name);
            if (fd == dirfd(dir)) continue;  // our own directory handle is not a leak
            j.begin('{').key("fd").num(fd).key("target").str(read_link(std::string("/proc/self/fd/") + e->d_name)).end('}');
        }
        closedir(dir);
    }
    j.end(']');
}

void report() {
    static const char* const rlimit_names[] = {"CPU", "FSIZE", "DATA", "STACK", "CORE", "RSS", "NPROC", "NOFILE",
                                                "MEMLOCK", "AS", "LOCKS", "SIGPENDING", "MSGQUEUE", "NICE",
                                                "RTPRIO", "RTTIME"};
    static const char* const ns_names[] = {"cgroup", "ipc", "mnt", "net", "pid", "time", "user", "uts"};
    std::string status, text;
    read_text("/proc/self/status", status);
    Json j;
    j.begin('{').key("pid").num(getpid()).key("ppid").num(getppid());
    j.key("uid").num(getuid()).key("euid").num(geteuid()).key("gid").num(getgid()).key("egid").num(getegid());
    gid_t groups[256];
    int ngroups = getgroups(256, groups);
    j.key("groups").begin('[');
    for (int i = 0; i < ngroups; ++i) j.num(groups[i]);
    j.end(']');
    char cwd[4096];
    j.key("cwd").str(getcwd(cwd, sizeof cwd) ? cwd : "?");
    utsname uts{};
    uname(&uts);
    j.key("hostname").str(uts.nodename).key("domainname").str(uts.domainname);
    j.key("umask").num(strtol(status_field(status, "Umask").c_str(), nullptr, 8));
    j.key("no_new_privs").boolean(prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0) == 1);
    j.key("seccomp").num(atoi(status_field(status, "Seccomp").c_str()));
    j.key("caps").begin('{');
    j.key("eff").str(status_field(status, "CapEff")).key("prm").str(status_field(status, "CapPrm"));
    j.key("inh").str(status_field(status, "CapInh")).key("bnd").str(status_field(status, "CapBnd"));
    j.key("amb").str(status_field(status, "CapAmb")).end('}');
    j.key("rlimits").begin('{');
    for (int r = 0; r < int(sizeof rlimit_names / sizeof *rlimit_names); ++r) {
        rlimit lim{};
        getrlimit(__rlimit_resource(r), &lim);
        j.key(rlimit_names[r]).begin('[').unum(lim.rlim_cur).unum(lim.rlim_max).end(']');
    }
    j.end('}');
    report_fds(j);
    j.key("ns").begin('{');
    for (const char* ns : ns_names) j.key(ns).str(read_link(std::string("/proc/self/ns/") + ns));
    j.end('}');
    report_mounts(j);
    j.key("env").begin('[');
    for (char** e = environ; *e; ++e) j.str(*e);
    j.end(']');
    j.key("lo_up").boolean(loopback_up());
    text.clear();
    read_text("/proc/self/oom_score_adj", text);
    j.key("oom_score_adj").num(atoi(text.c_str()));
    text.clear();
    read_text("/proc/self/cgroup", text);
    j.key("cgroup").str(text);
    j.key("tty").begin('[').boolean(isatty(0)).boolean(isatty(1)).boolean(isatty(2)).end(']');
    timespec mono{}, boot{};
    clock_gettime(CLOCK_MONOTONIC, &mono);
    clock_gettime(CLOCK_BOOTTIME, &boot);
    j.key("clock").begin('{').key("monotonic").dbl(double(mono.tv_sec) + mono.tv_nsec / 1e9);
    j.key("boottime").dbl(double(boot.tv_sec) + boot.tv_nsec / 1e9).end('}');
    j.end('}').emit();
}

void print_errno(int err) {
    Json j;
    j.begin('{').key("errno").num(err).end('}').emit();
}

void stat_path(const char* path) {
    struct stat st{};
    if (lstat(path, &st) != 0) return print_errno(errno);
    const char* type = S_ISCHR(st.st_mode) ? "c" : S_ISBLK(st.st_mode) ? "b" : S_ISDIR(st.st_mode) ? "d"
                     : S_ISLNK(st.st_mode) ? "l" : S_ISFIFO(st.st_mode) ? "p" : S_ISSOCK(st.st_mode) ? "s" : "f";
    Json j;
    j.begin('{').key("errno").num(0).key("type").str(type).key("mode").num(st.st_mode & 07777);
    j.key("uid").num(st.st_uid).key("gid").num(st.st_gid).key("size").num(st.st_size);
    j.key("major").num(major(st.st_rdev)).key("minor").num(minor(st.st_rdev)).end('}').emit();
}

// CVE-2019-5736: the exe of a runtime process the container can see (its parent: husk's monitor or `husk
// run`) must not be writable, now (ETXTBSY while it runs) or ever (a read-only mount, or a sealed memfd).
void exe_of_parent() {
    std::string path = "/proc/" + std::to_string(getppid()) + "/exe";
    int write_errno = 0;
    int fd = open(path.c_str(), O_WRONLY | O_CLOEXEC);
    if (fd >= 0) close(fd);
    else write_errno = errno;
    struct statvfs fs{};
    int held = open(path.c_str(), O_PATH | O_CLOEXEC);
    bool readonly = held >= 0 && fstatvfs(held, &fs) == 0 && (fs.f_flag & ST_RDONLY) != 0;
    Json j;
    j.begin('{').key("path").str(path.c_str()).key("writeErrno").num(write_errno).key("readonlyMount").boolean(readonly);
    j.end('}').emit();
}

void exit_with(int code) { _exit(code); }

void on_signal(int sig) { _exit(128 + sig); }

// As pid 1 of a pid namespace, a signal without a handler is ignored (pid_namespaces(7)), so
// `sleep` exits on the usual termination signals through a handler: exit status 128 + signal.
void sleep_for(const char* seconds, bool ignore_term) {
    for (int sig : {SIGTERM, SIGINT, SIGHUP, SIGUSR1, SIGUSR2}) signal(sig, on_signal);
    if (ignore_term) signal(SIGTERM, SIG_IGN);
    Json j;
    j.begin('{').key("sleeping").num(atoi(seconds)).key("ignore_term").boolean(ignore_term).end('}').emit();
    timespec left{atol(seconds), 0};
    while (nanosleep(&left, &left) != 0 && errno == EINTR) {}
}

// Forks up to `count` children that only wait, going on when a fork fails (EAGAIN at pids.max: a shell
// would give up), then kills and reaps them and reports {"forked":N,"errno":E} (E from the failed fork).
void fork_children(int count) {
    static pid_t children[4096];
    int forked = 0, err = 0;
    pid_t self = getpid();
    while (forked < count && forked < int(sizeof children / sizeof *children)) {
        pid_t pid = fork();
        if (pid < 0 && errno == EINTR) continue;
        if (pid < 0) { err = errno; break; }
        if (pid == 0) {
            prctl(PR_SET_PDEATHSIG, SIGKILL);
            if (getppid() == self) pause();
            _exit(0);
        }
        children[forked++] = pid;
    }
    for (int i = 0; i < forked; ++i) kill(children[i], SIGKILL);
    for (int i = 0; i < forked; ++i) waitpid(children[i], nullptr, 0);
    Json j;
    j.begin('{').key("forked").num(forked).key("errno").num(err).end('}').emit();
}

// Makes one system call a seccomp profile may deny, with arguments that do nothing harmful when it is let
// through (they fail with EINVAL, EFAULT, ESRCH or EBADF instead), and returns its errno (0: it succeeded).
// -1: a name this probe does not know.
long try_syscall(const std::string& name) {
    long r = -1;
    errno = 0;
    if (name == "keyctl") r = syscall(SYS_keyctl, 0 /* KEYCTL_GET_KEYRING_ID */, -1, 0);
    else if (name == "bpf") r = syscall(SYS_bpf, -1, nullptr, 0);
    else if (name == "ptrace") r = syscall(SYS_ptrace, 3 /* PTRACE_PEEKUSER */, 0, 0, 0);
    else if (name == "mount") r = syscall(SYS_mount, nullptr, nullptr, nullptr, 0, nullptr);
    else if (name == "perf_event_open") r = syscall(SYS_perf_event_open, nullptr, 0, -1, -1, 0);
    else if (name == "unshare-user") r = syscall(SYS_unshare, CLONE_NEWUSER);
    else if (name == "clone-user") r = syscall(SYS_clone, CLONE_NEWUSER | CLONE_FS, nullptr, nullptr, nullptr, 0);
    else if (name == "clone3") r = syscall(SYS_clone3, nullptr, 0);
    else if (name == "io_uring_setup") r = syscall(SYS_io_uring_setup, 1, nullptr);
    else if (name == "getpid") r = syscall(SYS_getpid);
    else return -1;
    return r < 0 ? errno : 0;
}

}  // namespace

int main(int argc, char** argv) {
    std::string verb = argc > 1 ? argv[1] : "";
    const char* arg = argc > 2 ? argv[2] : nullptr;
    if (verb == "report") {
        report();
    } else if (verb == "net" || verb == "serve") {
        return net_main(argc, argv);
    } else if (verb == "now") {
        // CLOCK_MONOTONIC in microseconds, bare: the VM benchmark times runs with it (busybox date has no %N).
        timespec ts{};
        clock_gettime(CLOCK_MONOTONIC, &ts);
        std::printf("%lld\n", static_cast<long long>(ts.tv_sec) * 1000000 + ts.tv_nsec / 1000);
    } else if (verb == "exit" && arg) {
        exit_with(atoi(arg));
    } else if (verb == "sleep" && arg) {
        sleep_for(arg, false);
    } else if (verb == "ignore-term" && arg && std::string(arg) == "sleep" && argc > 3) {
        sleep_for(argv[3], true);
    } else if (verb == "signal-self" && arg) {
        int sig = atoi(arg);
        signal(sig, SIG_DFL);
        sigset_t set;
        sigemptyset(&set);
        sigaddset(&set, sig);
        sigprocmask(SIG_UNBLOCK, &set, nullptr);
        raise(sig);
        fail("still alive after raise (pid 1 of a pid namespace ignores its own signals)", 0);
    } else if ((verb == "write" || verb == "open") && arg) {
        int fd = open(arg, verb == "write" ? O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC : O_RDONLY | O_CLOEXEC, 0644);
        int err = fd < 0 ? errno : 0;
        if (fd >= 0 && verb == "write" && write(fd, "probe\n", 6) != 6) err = errno;
        if (fd >= 0) close(fd);
        print_errno(err);
    } else if (verb == "read" && arg) {
        std::string text;
        int err = read_text(arg, text) ? 0 : errno;
        Json j;
        j.begin('{').key("errno").num(err).key("content").str(text).end('}').emit();
    } else if (verb == "mknod" && argc > 5) {
        mode_t type = argv[3][0] == 'b' ? S_IFBLK : S_IFCHR;
        print_errno(mknod(arg, type | 0600, makedev(atoi(argv[4]), atoi(argv[5]))) == 0 ? 0 : errno);
    } else if (verb == "stat" && arg) {
        stat_path(arg);
    } else if (verb == "exe-of-parent") {
        exe_of_parent();
    } else if (verb == "fork" && arg) {
        fork_children(atoi(arg));
    } else if (verb == "spam" && arg) {
        static char chunk[65536];
        memset(chunk, 'x', sizeof chunk);
        for (long long left = atoll(arg); left > 0;) {
            ssize_t n = write(1, chunk, size_t(left < long(sizeof chunk) ? left : long(sizeof chunk)));
            if (n < 0 && errno == EINTR) continue;
            if (n <= 0) fail("write stdout", errno);
            left -= n;
        }
    } else if (verb == "syscall" && arg) {
        long err = try_syscall(arg);
        if (err < 0) fail("syscall: unknown name", EINVAL);
        print_errno(static_cast<int>(err));
    } else if (verb == "burn" && arg) {
        // Busy until this process has used MS of CPU time, then exit 0: a known amount of CPU however loaded
        // the machine is (a loop count would take a different CPU time on each machine).
        long long want = atoll(arg) * 1000000LL;
        for (;;) {
            timespec ts{};
            clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
            if (static_cast<long long>(ts.tv_sec) * 1000000000LL + ts.tv_nsec >= want) break;
        }
    } else if (verb == "hold" && arg && argc > 3) {
        // Touches MIB of anonymous memory (so it is charged to the cgroup), says so, then keeps it SECONDS:
        // several runs holding memory at once, for a ceiling shared between them.
        size_t bytes = size_t(atoll(arg)) << 20;
        char* block = static_cast<char*>(malloc(bytes));
        if (!block) fail("malloc", ENOMEM);
        for (size_t at = 0; at < bytes; at += 4096) block[at] = 1;
        Json j;
        j.begin('{').key("held").num(static_cast<long long>(bytes)).end('}').emit();
        sleep(static_cast<unsigned>(atoi(argv[3])));
    } else {
        fail("usage: probe report|exit N|sleep S|signal-self SIG|write P|open P|read P|mknod P c|b MAJ MIN|"
             "stat P|ignore-term sleep S|spam BYTES|fork COUNT|exe-of-parent|burn MS|syscall NAME|net ...|serve|hold MIB S", EINVAL);
    }
    return 0;
}
