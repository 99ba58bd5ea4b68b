// seccomp and Landlock through the whole path (config.json → husk → the container's init), observed from
// inside the container, and the verified posture in `husk state` (DESIGN.md §6). The modules'
// own tests (src/seccomp, src/landlock) cover every action, operator, right and scope against the kernel.
#include <catch2/catch.hpp>

#include <linux/seccomp.h>
#include <poll.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <thread>

#include "harness.hpp"
#include "monitor_support.hpp"

using namespace husk::test;
using Catch::Matchers::Contains;

namespace {

Json deny_mknod(const std::string& action, int errno_ret = -1) {
    Json rule = Json::object({{"names", Json::strings({"mknod", "mknodat"})}, {"action", action}});
    if (errno_ret >= 0) rule["errnoRet"] = errno_ret;
    return Json::object({{"defaultAction", "SCMP_ACT_ALLOW"}, {"syscalls", Json::array({rule})}});
}

const std::vector<std::string> mknod_probe = {"/probe", "mknod", "/tmp/node", "c", "1", "3"};

// A seccomp agent (config-linux.md "Seccomp", listenerPath): receives the container process state and the
// notify fd, and answers every notified syscall with EDOM.
class Agent {
public:
    explicit Agent(const std::string& path) : path_(path) {
        listener_ = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        sockaddr_un address{};
        address.sun_family = AF_UNIX;
        std::strncpy(address.sun_path, path.c_str(), sizeof address.sun_path - 1);
        REQUIRE(bind(listener_, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0);
        REQUIRE(listen(listener_, 1) == 0);
        thread_ = std::thread([this] { serve(); });
    }
    ~Agent() {
        stop_ = true;
        thread_.join();
        close(listener_);
        unlink(path_.c_str());
    }
    std::string state() const { return state_; }
    int answered() const { return answered_; }

private:
    void serve() {
        pollfd accept_poll{listener_, POLLIN, 0};
        while (!stop_ && poll(&accept_poll, 1, 100) == 0) {
        }
        if (stop_) return;
        int connection = accept4(listener_, nullptr, nullptr, SOCK_CLOEXEC);
        char buffer[65536] = {};
        iovec iov{buffer, sizeof buffer - 1};
        alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int))] = {};
        msghdr message{};
        message.msg_iov = &iov;
        message.msg_iovlen = 1;
        message.msg_control = control;
        message.msg_controllen = sizeof control;
        ssize_t n = recvmsg(connection, &message, MSG_CMSG_CLOEXEC);
        close(connection);
        if (n <= 0) return;
        state_.assign(buffer, static_cast<std::size_t>(n));
        cmsghdr* cmsg = CMSG_FIRSTHDR(&message);
        if (cmsg == nullptr || cmsg->cmsg_type != SCM_RIGHTS) return;
        int notify = -1;
        std::memcpy(&notify, CMSG_DATA(cmsg), sizeof notify);
        answer(notify);
        close(notify);
    }
    void answer(int notify) {
        while (!stop_) {
            pollfd p{notify, POLLIN, 0};
            if (poll(&p, 1, 100) <= 0) continue;
            if (p.revents & (POLLHUP | POLLERR)) return;  // the container has gone
            seccomp_notif request{};
            if (ioctl(notify, SECCOMP_IOCTL_NOTIF_RECV, &request) != 0) continue;
            seccomp_notif_resp response{};
            response.id = request.id;
            response.error = -EDOM;
            if (ioctl(notify, SECCOMP_IOCTL_NOTIF_SEND, &response) == 0) ++answered_;
        }
    }

    std::string path_;
    int listener_ = -1;
    std::thread thread_;
    std::atomic<bool> stop_{false};
    std::string state_;
    std::atomic<int> answered_{0};
};

}  // namespace

TEST_CASE("a seccomp errno rule fails the call inside the container with that errno, and state shows the filter",
          "[integration][seccomp]") {
    Sandbox sb;
    Bundle b = with_args(sb, mknod_probe);
    b.config["linux"]["seccomp"] = deny_mknod("SCMP_ACT_ERRNO", EIO);
    std::string id = sb.id("errno");
    Output run = sb.run(b, id, {"--keep"});
    INFO(run.describe());
    REQUIRE(run.exit_code == 0);
    CHECK(last_json_line(run.out)["errno"].num() == EIO);
    Json st = wait_for_exit(sb, id);
    const Json& security = st["husk"]["security"];
    INFO(st.dump());
    CHECK(security["seccomp"].str() == "filter");
    CHECK(security["seccompFilters"].num() == 1);
    CHECK(security["noNewPrivileges"].boolean());
    CHECK_FALSE(security.contains("landlockAbi"));
    delete_and_check(sb, id);
}

TEST_CASE("a seccomp kill rule kills the process with SIGSYS", "[integration][seccomp]") {
    Sandbox sb;
    Bundle b = with_args(sb, mknod_probe);
    b.config["linux"]["seccomp"] = deny_mknod("SCMP_ACT_KILL_PROCESS");
    std::string id = sb.id("kill");
    Output run = sb.run(b, id, {"--keep"});
    INFO(run.describe());
    CHECK(run.exit_code == 128 + SIGSYS);
    Json st = wait_for_exit(sb, id);
    CHECK(st["husk"]["exit"]["reason"].str() == "signaled");
    CHECK(st["husk"]["exit"]["signal"].num() == SIGSYS);
    delete_and_check(sb, id);
}

TEST_CASE("without noNewPrivileges the filter is loaded before the capabilities are dropped",
          "[integration][seccomp]") {
    Sandbox sb;
    Bundle b = with_args(sb, mknod_probe);
    b.config["process"]["noNewPrivileges"] = false;
    b.config["linux"]["seccomp"] = deny_mknod("SCMP_ACT_ERRNO", EIO);
    std::string id = sb.id("nonnp");
    Output run = sb.run(b, id, {"--keep"});
    INFO(run.describe());
    REQUIRE(run.exit_code == 0);
    CHECK(last_json_line(run.out)["errno"].num() == EIO);
    Json st = wait_for_exit(sb, id);
    CHECK(st["husk"]["security"]["seccomp"].str() == "filter");
    CHECK_FALSE(st["husk"]["security"]["noNewPrivileges"].boolean());
    delete_and_check(sb, id);
}

TEST_CASE("SCMP_ACT_NOTIFY hands the listener fd and the state to listenerPath, and the agent answers",
          "[integration][seccomp]") {
    Sandbox sb;
    Agent agent(sb.dir() + "/agent.sock");
    Bundle b = with_args(sb, mknod_probe);
    Json seccomp = deny_mknod("SCMP_ACT_NOTIFY");
    seccomp["listenerPath"] = sb.dir() + "/agent.sock";
    seccomp["listenerMetadata"] = "test-metadata";
    b.config["linux"]["seccomp"] = seccomp;
    std::string id = sb.id("notify");
    Output run = sb.run(b, id);
    INFO(run.describe());
    REQUIRE(run.exit_code == 0);
    CHECK(last_json_line(run.out)["errno"].num() == EDOM);
    CHECK(agent.answered() >= 1);
    Json state = Json::parse(agent.state());
    INFO(agent.state());
    CHECK(state["ociVersion"].str() == "1.3.0");
    CHECK(state["fds"].strs() == std::vector<std::string>{"seccompFd"});
    CHECK(state["metadata"].str() == "test-metadata");
    CHECK(state["pid"].num() > 0);
    CHECK(state["state"]["id"].str() == id);
    check_nothing_left(sb);
}

TEST_CASE("a syscall name libseccomp does not know is an error unless the annotation lets an allow rule skip it",
          "[integration][seccomp]") {
    Sandbox sb;
    Bundle b = with_args(sb, {"/bin/true"});
    Json seccomp = deny_mknod("SCMP_ACT_ERRNO", EIO);
    seccomp["syscalls"].push_back(Json::object({{"names", Json::strings({"husk_no_such_syscall"})},
                                                {"action", "SCMP_ACT_ERRNO"}}));
    b.config["linux"]["seccomp"] = seccomp;
    std::string id = sb.id("unknown");
    Output out = sb.run(b, id);
    INFO(out.describe());
    CHECK(out.exit_code == 1);
    CHECK_THAT(out.err, Contains("husk_no_such_syscall"));
    check_nothing_left(sb);

    // A rule that could only allow (here: it repeats the default) may skip it; state names what was skipped.
    Bundle allow = sb.bundle("allow");
    allow.config["process"]["args"] = Json::strings(mknod_probe);
    allow.config["annotations"] = Json::object({{"run.husk.seccomp-unknown-syscalls", "skip-allowed"}});
    Json skipping = deny_mknod("SCMP_ACT_ERRNO", EIO);
    skipping["syscalls"].push_back(Json::object({{"names", Json::strings({"husk_no_such_syscall"})},
                                                 {"action", "SCMP_ACT_ALLOW"}}));
    allow.config["linux"]["seccomp"] = skipping;
    std::string id2 = sb.id("skipped");
    Output run = sb.run(allow, id2, {"--keep"});
    INFO(run.describe());
    REQUIRE(run.exit_code == 0);
    CHECK(last_json_line(run.out)["errno"].num() == EIO);
    Json st = wait_for_exit(sb, id2);
    CHECK(st["husk"]["security"]["seccompSkippedSyscalls"].strs() == std::vector<std::string>{"husk_no_such_syscall"});
    delete_and_check(sb, id2);
}
