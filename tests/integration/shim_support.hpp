// Driving husk's containerd shim the way containerd 1.6 does, without containerd: the `start` action run in
// the bundle with TTRPC_ADDRESS naming a stand-in for containerd's event service (EventSink), then ttrpc calls
// of containerd.task.v2.Task on the address start printed (ShimUnderTest). Every byte on the wire is the
// real binary's; the tests check what containerd would see.
#pragma once

#include <sys/types.h>

#include <atomic>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "harness.hpp"
#include "ttrpc/frame.hpp"
#include "ttrpc/task_api.hpp"

namespace husk::test {

// containerd's events ttrpc service: accepts the shim's connections, answers every Forward with OK and keeps
// the topics (and each event's Any) in arrival order. stop() closes it, as a containerd that went away.
class EventSink {
public:
    explicit EventSink(std::string path);
    ~EventSink();
    const std::string& path() const { return path_; }
    std::vector<std::string> topics() const;
    // Waits up to `timeout` for `topic` to have arrived `count` times.
    bool wait_for(const std::string& topic, Ms timeout = Ms(10000), std::size_t count = 1) const;
    void stop();
    void restart();

private:
    void serve();
    std::string path_;
    int listener_ = -1;
    std::atomic<bool> stopping_{false};
    std::thread thread_;
    mutable std::mutex mutex_;
    std::vector<std::string> topics_;
};

class ShimUnderTest {
public:
    // `ns` becomes the containerd namespace: the shim's state root is /run/containerd/husk/<ns>.
    ShimUnderTest(Sandbox& sandbox, const Bundle& bundle, std::string id);
    ~ShimUnderTest();
    const std::string& ns() const { return ns_; }
    const std::string& id() const { return id_; }
    const std::string& root() const { return root_; }  // /run/containerd/husk/<ns>
    std::string socket_path() const { return address_.substr(7); }  // "unix://" off
    EventSink& events() { return events_; }
    // One call on a connection of its own; the response (code, message, payload).
    ttrpc::Response call(const std::string& method, const std::string& payload, Ms timeout = Ms(30000));
    // Raw bytes on a fresh connection, then the frames read back until `frames` arrived or the timeout.
    std::vector<ttrpc::Frame> exchange(const std::string& bytes, std::size_t frames, Ms timeout = Ms(10000));
    pid_t shim_pid();
    // containerd's `delete` action for this task (what it runs after losing the shim); its stdout.
    Output remove_action();
    // The Create request for the bundle, stdio paths as given.
    std::string create_request(const std::string& stdout_path = "", const std::string& stdin_path = "",
                               bool terminal = false) const;
    // ... with the rootfs as a snapshotter hands it over: one bind mount of `source` (containerd's native
    // snapshotter), to go onto <bundle>/rootfs.
    std::string create_request_with_rootfs(const std::string& source) const;
    static std::string id_request(const std::string& id, const std::string& exec_id = "");

private:
    int connect() const;
    Sandbox& sandbox_;
    std::string bundle_dir_, id_, ns_, root_, shim_binary_, address_;
    EventSink events_;
};

// A FIFO the test creates (as containerd does for a task's stdio), opened for reading before the task exists,
// as containerd's client does.
class FifoReader {
public:
    explicit FifoReader(std::string path);
    ~FifoReader();
    const std::string& path() const { return path_; }
    // Everything until the writers are all gone (after one came), or the timeout.
    std::string read_all(Ms timeout = Ms(10000));

private:
    std::string path_;
    int fd_ = -1;
};
// A FIFO for a task's stdin; write() opens its write end (after the shim opened the read end) and writes.
class FifoWriter {
public:
    explicit FifoWriter(std::string path);
    ~FifoWriter();
    const std::string& path() const { return path_; }
    void write(const std::string& data);
    void close();

private:
    std::string path_;
    int fd_ = -1;
};

}  // namespace husk::test
