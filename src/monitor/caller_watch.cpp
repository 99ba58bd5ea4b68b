#include "monitor/caller_watch.hpp"

#include <unistd.h>

#include <cerrno>
#include <string>

#include "base/sys.hpp"

namespace husk::monitor {
namespace {

class CallerWatch : public Watcher {
public:
    CallerWatch(Caller caller, std::function<void()> kill) : caller_(std::move(caller)), kill_(std::move(kill)) {}
    Result<int> open() override { return caller_.pidfd.get(); }
    // A pidfd is readable once its process has exited (pidfd_open(2)).
    void on_ready(bool, Enforced& enforced) override {
        if (enforced.caller_gone != 0) return;
        enforced.caller_gone = caller_.pid;
        kill_();
    }

private:
    Caller caller_;
    std::function<void()> kill_;
};

}  // namespace

Result<Caller> open_caller() {
    Caller caller;
    caller.pid = ::getppid();
    caller.pidfd.reset(sys::pidfd_open(caller.pid));
    if (!caller.pidfd) return fail_sys(errno, "pidfd_open", "the caller, pid " + std::to_string(caller.pid));
    // The pidfd names the parent only if husk was not reparented in between: the caller died already.
    if (::getppid() != caller.pid) return fail_msg("--die-with-parent: the caller died before husk could watch it");
    return caller;
}

std::unique_ptr<Watcher> watch_caller(Caller caller, std::function<void()> kill) {
    return std::make_unique<CallerWatch>(std::move(caller), std::move(kill));
}

}  // namespace husk::monitor
