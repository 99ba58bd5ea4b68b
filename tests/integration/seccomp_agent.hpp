// A seccomp agent (config-linux.md "Seccomp", listenerPath): accepts every container process state husk
// sends with its notify fd (init's at create, each exec'd process's), and answers every notified syscall
// with EDOM, from a thread, until destroyed.
#pragma once

#include <atomic>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace husk::test {

class Agent {
public:
    explicit Agent(const std::string& path);  // listens at path
    ~Agent();
    Agent(const Agent&) = delete;
    Agent& operator=(const Agent&) = delete;
    std::string state() const;                // the first container process state received ("" if none)
    std::vector<std::string> states() const;  // all of them, in order
    int answered() const { return answered_; }

private:
    void serve();
    int receive();  // accepts one connection: records its state, returns its notify fd (or -1)
    void answer(int notify);

    std::string path_;
    int listener_ = -1;
    std::thread thread_;
    std::atomic<bool> stop_{false};
    mutable std::mutex mutex_;
    std::vector<std::string> states_;
    std::atomic<int> answered_{0};
};

}  // namespace husk::test
