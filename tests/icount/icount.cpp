// icount: counts the user-space instructions a command and every process and thread it starts execute, by
// single-stepping each of them under ptrace (tests/bench.sh's "instructions" rows; docs/testing.md, "Counting
// instructions"). This machine's kernel offers no hardware counter (perf's instructions:u is not supported)
// and valgrind 3.19 knows neither open_tree nor clone3, so the count is taken the slow, exact way: a figure
// that does not swing with the machine's load, unlike a timing.
//
//   icount [--profile FILE] [--tasks] [--] COMMAND [ARG...]
//
// Prints to stderr one line per executable, "icount: COUNT PATH", the instructions executed while a task ran
// that executable (a process's children inherit it until they exec), then "icount: TOTAL total". With
// --tasks, also "icount: task PID: COUNT PATH" as each task ends. Exits with COMMAND's status. COMMAND and
// everything it starts must end: icount waits for every task it traces.
//
// With --profile, also writes to FILE, for a profile by function (tests/icount/symbolize.py):
//   self PATH OFFSET COUNT   instructions at OFFSET
//   call PATH OFFSET COUNT   instructions executed between a call to OFFSET and its return (callees included)
// OFFSET is relative to the start of the executable's first mapping, as nm prints addresses of a PIE or
// static-pie binary. A call is a step that moves the stack pointer down by 8 and the instruction pointer
// anywhere but the next few bytes; its frame ends when the stack pointer rises above the return address. A
// new process starts with its parent's frames; a thread started on a stack of its own leaves them at once.
//
// A step that leaves the instruction pointer where it was is not counted: the CPU traps after each iteration
// of a rep-prefixed string instruction (memcpy, memset), and those are one instruction. Must run as root
// (it traces whatever the command becomes, in any user namespace).
#include <cerrno>
#include <csignal>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

#include <sys/ptrace.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>

namespace {

struct Frame {
    unsigned long entry;             // the called address, relative to the executable's base
    unsigned long sp;                // the stack pointer at entry (pointing at the return address)
    unsigned long long count_at_entry;  // the task's count then
};

struct Task {
    std::string exe;                // the executable it runs
    unsigned long base = 0;         // where that executable's first mapping starts (for --profile)
    unsigned long last_ip = 0;      // the registers after the previous step (0: not known yet)
    unsigned long last_sp = 0;
    unsigned long long count = 0;   // its instructions
    std::vector<Frame> frames;      // its calls in progress (for --profile)
    bool attached = false;          // its first stop (the auto-attach SIGSTOP) was seen
};

using Key = std::pair<std::string, unsigned long>;

std::string exe_of(pid_t pid) {
    char buf[4096];
    std::string link = "/proc/" + std::to_string(pid) + "/exe";
    ssize_t n = readlink(link.c_str(), buf, sizeof buf - 1);
    return n > 0 ? std::string(buf, static_cast<size_t>(n)) : std::string("?");
}

// Where PID's executable EXE is mapped: the start of its mapping of file offset 0 (0 if none is found).
unsigned long base_of(pid_t pid, const std::string& exe) {
    std::ifstream maps("/proc/" + std::to_string(pid) + "/maps");
    std::string line;
    while (std::getline(maps, line)) {
        // start-end perms offset dev inode path
        char range[64], perms[8], dev[16];
        unsigned long offset = 0, inode = 0;
        int path_at = 0;
        if (std::sscanf(line.c_str(), "%63s %7s %lx %15s %lu %n", range, perms, &offset, dev, &inode, &path_at) < 5)
            continue;
        if (offset == 0 && path_at > 0 && line.compare(static_cast<size_t>(path_at), std::string::npos, exe) == 0)
            return std::strtoul(range, nullptr, 16);
    }
    return 0;
}

class Counter {
public:
    explicit Counter(bool profile) : profile_(profile) {}

    // One completed step of TASK; the registers are read only when a profile is wanted or to tell a rep
    // iteration from an instruction.
    void step(pid_t pid, Task& task) {
        user_regs_struct regs{};
        if (ptrace(PTRACE_GETREGS, pid, nullptr, &regs) != 0) return;
        const unsigned long ip = regs.rip, sp = regs.rsp;
        if (ip == task.last_ip && sp == task.last_sp) return;  // another iteration of a rep instruction
        ++task.count;
        ++per_exe_[task.exe];
        if (profile_ && task.last_ip) {
            ++self_[{task.exe, task.last_ip - task.base}];
            // Returns (and unwinding): every frame whose return address is now below the stack pointer ends.
            while (!task.frames.empty() && sp > task.frames.back().sp) end_frame(task);
            bool near = ip > task.last_ip && ip - task.last_ip <= 15;
            if (sp == task.last_sp - 8 && !near) task.frames.push_back(Frame{ip - task.base, sp, task.count});
        }
        task.last_ip = ip;
        task.last_sp = sp;
    }

    void end_frame(Task& task) {
        const Frame& frame = task.frames.back();
        calls_[{task.exe, frame.entry}] += task.count - frame.count_at_entry;
        task.frames.pop_back();
    }

    void end_task(Task& task) {
        while (!task.frames.empty()) end_frame(task);
    }

    unsigned long long report(const char* profile_path) const {
        unsigned long long total = 0;
        for (const auto& [exe, count] : per_exe_) {
            std::fprintf(stderr, "icount: %llu %s\n", count, exe.c_str());
            total += count;
        }
        std::fprintf(stderr, "icount: %llu total\n", total);
        if (!profile_path) return total;
        FILE* out = std::fopen(profile_path, "we");
        if (!out) {
            std::perror("icount: --profile");
            std::exit(1);
        }
        for (const auto& [key, count] : self_) std::fprintf(out, "self %s %lx %llu\n", key.first.c_str(), key.second, count);
        for (const auto& [key, count] : calls_) std::fprintf(out, "call %s %lx %llu\n", key.first.c_str(), key.second, count);
        std::fclose(out);
        return total;
    }

private:
    bool profile_;
    std::map<std::string, unsigned long long> per_exe_;
    std::map<Key, unsigned long long> self_, calls_;
};

} // namespace

int main(int argc, char** argv) {
    int arg = 1;
    const char* profile_path = nullptr;
    bool tasks_too = false;
    for (; arg < argc; ++arg) {
        if (std::strcmp(argv[arg], "--profile") == 0 && arg + 1 < argc) {
            profile_path = argv[++arg];
        } else if (std::strcmp(argv[arg], "--tasks") == 0) {
            tasks_too = true;
        } else {
            if (std::strcmp(argv[arg], "--") == 0) ++arg;
            break;
        }
    }
    if (arg >= argc) {
        std::fprintf(stderr, "usage: icount [--profile FILE] [--tasks] [--] COMMAND [ARG...]\n");
        return 2;
    }

    pid_t root = fork();
    if (root < 0) {
        std::perror("icount: fork");
        return 1;
    }
    if (root == 0) {
        if (ptrace(PTRACE_TRACEME, 0, nullptr, nullptr) != 0) _exit(127);
        raise(SIGSTOP);
        execvp(argv[arg], argv + arg);
        std::fprintf(stderr, "icount: exec %s: %s\n", argv[arg], std::strerror(errno));
        _exit(127);
    }
    int status = 0;
    if (waitpid(root, &status, 0) != root || !WIFSTOPPED(status)) {
        std::fprintf(stderr, "icount: the command did not stop for tracing\n");
        return 1;
    }
    const long options = PTRACE_O_TRACEFORK | PTRACE_O_TRACEVFORK | PTRACE_O_TRACECLONE | PTRACE_O_TRACEEXEC |
                         PTRACE_O_EXITKILL;
    if (ptrace(PTRACE_SETOPTIONS, root, nullptr, options) != 0) {
        std::perror("icount: PTRACE_SETOPTIONS");
        return 1;
    }

    Counter counter(profile_path != nullptr);
    std::unordered_map<pid_t, Task> tasks;
    tasks[root].exe = exe_of(root);
    tasks[root].attached = true;
    // What a new task starts with (its parent's executable and calls), kept from the parent's fork or clone
    // event until the child's first stop, which may come before or after that event.
    std::unordered_map<pid_t, Task> inherited;
    int root_status = 0;
    ptrace(PTRACE_SINGLESTEP, root, nullptr, nullptr);
    for (;;) {
        pid_t pid = waitpid(-1, &status, __WALL);
        if (pid < 0) {
            if (errno == EINTR) continue;
            break;  // ECHILD: no traced task is left
        }
        if (WIFEXITED(status) || WIFSIGNALED(status)) {
            if (pid == root) root_status = status;
            if (auto it = tasks.find(pid); it != tasks.end()) {
                counter.end_task(it->second);
                if (tasks_too) std::fprintf(stderr, "icount: task %d: %llu %s\n", pid, it->second.count, it->second.exe.c_str());
                tasks.erase(it);
            }
            continue;
        }
        if (!WIFSTOPPED(status)) continue;
        Task& task = tasks[pid];
        const int sig = WSTOPSIG(status);
        const int event = status >> 16;
        int inject = 0;
        auto child_of = [&](const Task& parent) {
            Task child;
            child.exe = parent.exe;
            child.base = parent.base;
            child.last_ip = parent.last_ip;
            child.last_sp = parent.last_sp;
            for (const Frame& frame : parent.frames) child.frames.push_back(Frame{frame.entry, frame.sp, 0});
            return child;
        };
        if (!task.attached) {  // a new task's first stop: nothing ran yet
            if (auto it = inherited.find(pid); it != inherited.end()) {
                task = std::move(it->second);
                inherited.erase(it);
            } else {
                task.exe = exe_of(pid);
                task.base = profile_path ? base_of(pid, task.exe) : 0;
            }
            task.attached = true;
        } else if (event == PTRACE_EVENT_FORK || event == PTRACE_EVENT_VFORK || event == PTRACE_EVENT_CLONE) {
            unsigned long child = 0;
            ptrace(PTRACE_GETEVENTMSG, pid, nullptr, &child);
            auto c = tasks.find(static_cast<pid_t>(child));
            if (c != tasks.end() && c->second.attached) {
                Task copy = child_of(task);
                copy.attached = true;
                copy.count = c->second.count;
                c->second = std::move(copy);
            } else {
                inherited[static_cast<pid_t>(child)] = child_of(task);
            }
        } else if (event == PTRACE_EVENT_EXEC) {
            counter.end_task(task);
            task.exe = exe_of(pid);
            task.base = profile_path ? base_of(pid, task.exe) : 0;
            task.last_ip = task.last_sp = 0;
        } else if (event != 0) {
            // another event stop: resumed without a signal
        } else if (sig == SIGTRAP) {  // a single step completed
            counter.step(pid, task);
        } else {
            inject = sig;  // a signal for the task: delivered
        }
        ptrace(PTRACE_SINGLESTEP, pid, nullptr, reinterpret_cast<void*>(static_cast<long>(inject)));
    }
    counter.report(profile_path);
    if (WIFSIGNALED(root_status)) return 128 + WTERMSIG(root_status);
    return WEXITSTATUS(root_status);
}
