// husk's containerd shim (containerd-shim-husk-v2) driven over ttrpc as containerd 1.6 drives it
// (shim_support.hpp): a task's life and its events, exec with stdin and CloseIO, husk's limits and verdict
// inside the shim, bad input on the wire, a containerd that goes away, and a shim killed outright.
#include <signal.h>
#include <unistd.h>

#include <catch2/catch.hpp>

#include <algorithm>
#include <chrono>
#include <thread>

#include <sys/stat.h>

#include "shim_support.hpp"
#include "ttrpc/protobuf.hpp"

namespace husk::test {
namespace {

using ttrpc::Code;

// The first varint field `number` of a response payload (pid, exit_status...); 0 when absent.
std::uint64_t field(const std::string& payload, std::uint32_t number) {
    ttrpc::ProtoReader reader(payload);
    while (auto next = reader.next()) {
        if (!*next) break;
        if ((*next)->number == number && (*next)->type == ttrpc::WireType::varint) return (*next)->value;
    }
    return 0;
}

Bundle task_bundle(Sandbox& sb, std::vector<std::string> args) {
    Bundle b = sb.bundle();
    b.config["process"]["args"] = Json::strings(args);
    return b;
}

void require_ok(const ttrpc::Response& response, const char* what) {
    INFO(what << ": code " << static_cast<int>(response.code) << " " << response.message);
    REQUIRE(response.code == Code::ok);
}

std::uint32_t wait_exit(ShimUnderTest& shim, const std::string& exec_id = "") {
    auto response = shim.call("Wait", ShimUnderTest::id_request(shim.id(), exec_id));
    require_ok(response, "Wait");
    return static_cast<std::uint32_t>(field(response.payload, 1));
}

std::string kill_request(const std::string& id, int signal, bool all = false) {
    ttrpc::ProtoWriter w;
    w.string(1, id);
    w.uint(3, static_cast<std::uint64_t>(signal));
    w.boolean(4, all);
    return w.take();
}

// Delete, then Shutdown: the shim ends, its socket and the task's state go.
void delete_and_shutdown(ShimUnderTest& shim) {
    pid_t pid = shim.shim_pid();
    require_ok(shim.call("Delete", ShimUnderTest::id_request(shim.id())), "Delete");
    require_ok(shim.call("Shutdown", ShimUnderTest::id_request(shim.id())), "Shutdown");
    for (int i = 0; i < 250 && process_alive(pid); ++i) ::usleep(20000);
    CHECK_FALSE(process_alive(pid));
    CHECK(::access((shim.root() + "/" + shim.id()).c_str(), F_OK) != 0);
}

// The task's bundle as containerd lays it out: config.json and an empty rootfs/ for the snapshot's mount.
Bundle snapshot_bundle(Sandbox& sb, const std::string& name, const Bundle& image) {
    Bundle task{sb.dir() + "/" + name, image.config};
    REQUIRE(::mkdir(task.dir.c_str(), 0755) == 0);
    REQUIRE(::mkdir(task.rootfs().c_str(), 0755) == 0);
    return task;
}

}  // namespace

TEST_CASE("shim: the snapshot's rootfs mount is taken at Create and gone at Delete", "[shim]") {
    Sandbox sb;
    const std::string id = sb.id("snapshot");
    Bundle image = task_bundle(sb, {"sh", "-c", "test -x /probe"});
    Bundle b = snapshot_bundle(sb, "task", image);
    ShimUnderTest shim(sb, b, id);
    require_ok(shim.call("Create", shim.create_request_with_rootfs(image.rootfs())), "Create");
    CHECK(::access((b.rootfs() + "/probe").c_str(), X_OK) == 0);
    require_ok(shim.call("Start", ShimUnderTest::id_request(id)), "Start");
    CHECK(wait_exit(shim) == 0);
    delete_and_shutdown(shim);
    CHECK(::access((b.rootfs() + "/probe").c_str(), F_OK) != 0);
    check_nothing_left(sb);
}

TEST_CASE("shim: killed at any point of a Create, containerd's delete action leaves nothing", "[shim]") {
    // The kill lands at a different point of Create each round (from before the rootfs is mounted to after
    // init exists); whichever it is, the delete action must find and remove all of it.
    for (int delay_ms : {0, 1, 2, 4, 8, 15, 30, 60}) {
        Sandbox sb;
        const std::string id = sb.id("cut");
        Bundle image = task_bundle(sb, {"sleep", "100"});
        Bundle b = snapshot_bundle(sb, "task", image);
        ShimUnderTest shim(sb, b, id);
        const pid_t pid = shim.shim_pid();
        std::thread create([&] { (void)shim.exchange(ttrpc::encode_frame(1, ttrpc::FrameType::request, [&] {
            ttrpc::Request request;
            request.service = "containerd.task.v2.Task";
            request.method = "Create";
            request.payload = shim.create_request_with_rootfs(image.rootfs());
            return ttrpc::encode_request(request);
        }()), 1, Ms(10000)); });
        ::usleep(static_cast<useconds_t>(delay_ms) * 1000);
        REQUIRE(::kill(pid, SIGKILL) == 0);
        create.join();
        for (int i = 0; i < 250 && process_alive(pid); ++i) ::usleep(20000);
        Output removed = shim.remove_action();
        INFO("killed " << delay_ms << " ms into Create; delete action: " << removed.describe());
        CHECK(removed.exit_code == 0);
        CHECK(::access((shim.root() + "/" + id).c_str(), F_OK) != 0);
        CHECK(::access((b.rootfs() + "/probe").c_str(), F_OK) != 0);
        CHECK(::access(shim.socket_path().c_str(), F_OK) != 0);
        check_nothing_left(sb);
    }
}

TEST_CASE("shim: a task's life: create, start, its output, exit status and events, delete, shutdown", "[shim]") {
    Sandbox sb;
    const std::string id = sb.id("life");
    Bundle b = task_bundle(sb, {"sh", "-c", "echo hello; exit 3"});
    ShimUnderTest shim(sb, b, id);
    FifoReader out(sb.dir() + "/stdout");
    auto created = shim.call("Create", shim.create_request(out.path()));
    require_ok(created, "Create");
    CHECK(field(created.payload, 1) > 0);
    auto state = shim.call("State", ShimUnderTest::id_request(id));
    require_ok(state, "State");
    CHECK(field(state.payload, 4) == 1);  // CREATED
    require_ok(shim.call("Start", ShimUnderTest::id_request(id)), "Start");
    CHECK(wait_exit(shim) == 3);
    CHECK(out.read_all() == "hello\n");
    state = shim.call("State", ShimUnderTest::id_request(id));
    CHECK(field(state.payload, 4) == 3);  // STOPPED
    CHECK(field(state.payload, 9) == 3);  // exit_status
    // The verdict, in the shim's state root, until containerd deletes the task.
    Output husk_state = sb.command({paths().husk, "--root", shim.root(), "state", id});
    INFO(husk_state.describe());
    Json json = Json::parse(husk_state.out);
    CHECK(json["status"].str() == "stopped");
    CHECK(json["husk"]["exit"]["reason"].str() == "exited");
    REQUIRE(shim.events().wait_for("/tasks/exit"));
    delete_and_shutdown(shim);
    REQUIRE(shim.events().wait_for("/tasks/delete"));
    CHECK(shim.events().topics() == std::vector<std::string>{"/tasks/create", "/tasks/start", "/tasks/exit", "/tasks/delete"});
    check_nothing_left(sb);
}

TEST_CASE("shim: husk's limits hold in the shim: run.husk.timeout ends the task, its verdict says timeout", "[shim]") {
    Sandbox sb;
    const std::string id = sb.id("limit");
    Bundle b = task_bundle(sb, {"sleep", "100"});
    b.config["annotations"] = Json::object({{"run.husk.timeout", "300ms"}, {"run.husk.kill-grace", "100ms"}});
    ShimUnderTest shim(sb, b, id);
    require_ok(shim.call("Create", shim.create_request()), "Create");
    require_ok(shim.call("Start", ShimUnderTest::id_request(id)), "Start");
    std::uint32_t status = wait_exit(shim);
    Output husk_state = sb.command({paths().husk, "--root", shim.root(), "state", id});
    INFO(husk_state.describe());
    Json json = Json::parse(husk_state.out);
    CHECK(json["husk"]["exit"]["reason"].str() == "timeout");
    CHECK((status == 128 + SIGTERM || status == 128 + SIGKILL));
    delete_and_shutdown(shim);
    check_nothing_left(sb);
}

TEST_CASE("shim: exec: stdin until CloseIO, output, exit status, exec events", "[shim]") {
    Sandbox sb;
    const std::string id = sb.id("exec");
    Bundle b = task_bundle(sb, {"sleep", "100"});
    ShimUnderTest shim(sb, b, id);
    require_ok(shim.call("Create", shim.create_request()), "Create");
    require_ok(shim.call("Start", ShimUnderTest::id_request(id)), "Start");
    FifoWriter in(sb.dir() + "/exec-stdin");
    FifoReader out(sb.dir() + "/exec-stdout");
    ttrpc::ProtoWriter spec;
    spec.string(1, "types.containerd.io/opencontainers/runtime-spec/1/Process");
    spec.string(2, R"({"args":["sh","-c","cat; exit 4"],"cwd":"/","env":["PATH=/bin:/usr/bin"],"user":{"uid":0,"gid":0}})");
    ttrpc::ProtoWriter exec;
    exec.string(1, id);
    exec.string(2, "e1");
    exec.string(4, in.path());
    exec.string(5, out.path());
    exec.string(6, out.path());
    exec.message(7, spec.data());
    require_ok(shim.call("Exec", exec.take()), "Exec");
    auto started = shim.call("Start", ShimUnderTest::id_request(id, "e1"));
    require_ok(started, "Start e1");
    CHECK(field(started.payload, 1) > 0);
    in.write("through stdin\n");
    ttrpc::ProtoWriter close_io;
    close_io.string(1, id);
    close_io.string(2, "e1");
    close_io.boolean(3, true);
    require_ok(shim.call("CloseIO", close_io.take()), "CloseIO");
    CHECK(wait_exit(shim, "e1") == 4);
    CHECK(out.read_all() == "through stdin\n");
    require_ok(shim.call("Delete", ShimUnderTest::id_request(id, "e1")), "Delete e1");
    require_ok(shim.call("Kill", kill_request(id, SIGKILL)), "Kill");
    CHECK(wait_exit(shim) == 128 + SIGKILL);
    delete_and_shutdown(shim);
    auto topics = shim.events().topics();
    CHECK(std::count(topics.begin(), topics.end(), "/tasks/exec-added") == 1);
    CHECK(std::count(topics.begin(), topics.end(), "/tasks/exec-started") == 1);
    CHECK(std::count(topics.begin(), topics.end(), "/tasks/exit") == 2);
    check_nothing_left(sb);
}

TEST_CASE("shim: bad input on the wire gets an error status and leaves the task unharmed", "[shim]") {
    Sandbox sb;
    const std::string id = sb.id("wire");
    Bundle b = task_bundle(sb, {"sleep", "100"});
    ShimUnderTest shim(sb, b, id);
    require_ok(shim.call("Create", shim.create_request()), "Create");
    require_ok(shim.call("Start", ShimUnderTest::id_request(id)), "Start");
    auto code_of = [](const std::vector<ttrpc::Frame>& frames, std::size_t i) {
        REQUIRE(frames.size() > i);
        auto response = ttrpc::decode_response(frames[i].payload);
        REQUIRE(response);
        return response->code;
    };
    // A request that is not a protobuf Request.
    CHECK(code_of(shim.exchange(ttrpc::encode_frame(1, ttrpc::FrameType::request, "\xff\xff\xff"), 1), 0) == Code::invalid_argument);
    // Unknown methods and services, a checkpoint, an even stream id, a malformed CreateTaskRequest.
    CHECK(shim.call("Nope", "").code == Code::unimplemented);
    CHECK(shim.call("Checkpoint", ShimUnderTest::id_request(id)).code == Code::unimplemented);
    ttrpc::Request other;
    other.service = "containerd.other.v1.Other";
    other.method = "State";
    CHECK(code_of(shim.exchange(ttrpc::encode_frame(1, ttrpc::FrameType::request, ttrpc::encode_request(other)), 1), 0) == Code::unimplemented);
    ttrpc::Request state;
    state.service = "containerd.task.v2.Task";
    state.method = "State";
    state.payload = ShimUnderTest::id_request(id);
    CHECK(code_of(shim.exchange(ttrpc::encode_frame(2, ttrpc::FrameType::request, ttrpc::encode_request(state)), 1), 0) == Code::invalid_argument);
    CHECK(shim.call("Create", "\x08").code == Code::invalid_argument);
    CHECK(shim.call("Create", shim.create_request()).code == Code::already_exists);
    CHECK(shim.call("State", ShimUnderTest::id_request("nobody")).code == Code::not_found);
    // An oversized frame (5 MiB) is read past and refused; the next frame on the same connection is served.
    std::string oversized = ttrpc::encode_frame(1, ttrpc::FrameType::request, std::string(5u << 20, 'x'));
    auto frames = shim.exchange(oversized + ttrpc::encode_frame(3, ttrpc::FrameType::request, ttrpc::encode_request(state)), 2);
    CHECK(code_of(frames, 0) == Code::resource_exhausted);
    CHECK(frames[1].stream == 3);
    CHECK(code_of(frames, 1) == Code::ok);
    // A connection that sends half a frame and goes away.
    CHECK(shim.exchange(std::string("\x00\x00\x01", 3), 1, Ms(200)).empty());
    auto alive = shim.call("State", ShimUnderTest::id_request(id));
    require_ok(alive, "State");
    CHECK(field(alive.payload, 4) == 2);  // RUNNING
    require_ok(shim.call("Kill", kill_request(id, SIGKILL)), "Kill");
    CHECK(wait_exit(shim) == 128 + SIGKILL);
    delete_and_shutdown(shim);
    check_nothing_left(sb);
}

TEST_CASE("shim: containerd away: the task runs on, Wait answers, the events arrive once it is back", "[shim]") {
    Sandbox sb;
    const std::string id = sb.id("away");
    Bundle b = task_bundle(sb, {"sh", "-c", "sleep 0.3; exit 7"});
    ShimUnderTest shim(sb, b, id);
    require_ok(shim.call("Create", shim.create_request()), "Create");
    REQUIRE(shim.events().wait_for("/tasks/create"));
    shim.events().stop();
    require_ok(shim.call("Start", ShimUnderTest::id_request(id)), "Start");
    CHECK(wait_exit(shim) == 7);
    shim.events().restart();
    CHECK(shim.events().wait_for("/tasks/exit"));
    CHECK(shim.events().topics() == std::vector<std::string>{"/tasks/create", "/tasks/start", "/tasks/exit"});
    delete_and_shutdown(shim);
    check_nothing_left(sb);
}

TEST_CASE("shim: a shim killed outright: containerd's delete action kills and removes its task, leaves nothing", "[shim]") {
    Sandbox sb;
    const std::string id = sb.id("killed");
    Bundle b = task_bundle(sb, {"sleep", "100"});
    ShimUnderTest shim(sb, b, id);
    auto created = shim.call("Create", shim.create_request());
    require_ok(created, "Create");
    const pid_t init = static_cast<pid_t>(field(created.payload, 1));
    require_ok(shim.call("Start", ShimUnderTest::id_request(id)), "Start");
    const pid_t pid = shim.shim_pid();
    REQUIRE(::kill(pid, SIGKILL) == 0);
    for (int i = 0; i < 250 && process_alive(pid); ++i) ::usleep(20000);
    REQUIRE_FALSE(process_alive(pid));
    CHECK(process_alive(init));
    Output removed = shim.remove_action();
    INFO(removed.describe());
    REQUIRE(removed.exit_code == 0);
    CHECK(field(removed.out, 2) == 128 + SIGKILL);  // DeleteResponse.exit_status
    CHECK(field(removed.out, 1) == static_cast<std::uint64_t>(init));
    CHECK(::access(shim.socket_path().c_str(), F_OK) != 0);  // the dead shim's socket went with it
    for (int i = 0; i < 250 && process_alive(init); ++i) ::usleep(20000);
    CHECK_FALSE(process_alive(init));
    CHECK(::access((shim.root() + "/" + id).c_str(), F_OK) != 0);
    check_nothing_left(sb);
}


TEST_CASE("shim: task options: runc's no_pivot_root is honoured, a systemd cgroup or an unknown type refused", "[shim]") {
    Sandbox sb;
    const std::string id = sb.id("options");
    Bundle b = task_bundle(sb, {"sh", "-c", "exit 0"});
    ShimUnderTest shim(sb, b, id);
    auto with_options = [&](const std::string& type_url, const std::string& value) {
        ttrpc::ProtoWriter any;
        any.string(1, type_url);
        any.string(2, value);
        ttrpc::ProtoWriter request;
        request.string(1, id);
        request.string(2, b.dir);
        request.message(10, any.data());
        return shim.call("Create", request.take());
    };
    ttrpc::ProtoWriter systemd;
    systemd.boolean(9, true);
    auto refused = with_options("containerd.runc.v1.Options", systemd.take());
    CHECK(refused.code == Code::unknown);
    CHECK(refused.message.find("SystemdCgroup is not supported by husk") != std::string::npos);
    // A terminal the request asks for that config.json does not give: refused, nothing left of it.
    auto terminal = shim.call("Create", shim.create_request("", "", true));
    CHECK(terminal.code == Code::unknown);
    CHECK(terminal.message.find("the task's terminal is true but config.json's process.terminal is not") != std::string::npos);
    CHECK(::access((shim.root() + "/" + id).c_str(), F_OK) != 0);
    auto unknown = with_options("example.com.Options", "");
    CHECK(unknown.message.find("\"example.com.Options\" are not understood") != std::string::npos);
    CHECK(::access((shim.root() + "/" + id).c_str(), F_OK) != 0);  // nothing of the refused task
    ttrpc::ProtoWriter no_pivot;
    no_pivot.boolean(1, true);
    require_ok(with_options("containerd.linux.runc.CreateOptions", no_pivot.take()), "Create --no-pivot");
    require_ok(shim.call("Start", ShimUnderTest::id_request(id)), "Start");
    CHECK(wait_exit(shim) == 0);
    delete_and_shutdown(shim);
    check_nothing_left(sb);
}

TEST_CASE("shim: without a pid namespace, what init leaves running goes when it exits", "[shim]") {
    Sandbox sb;
    const std::string id = sb.id("nopidns");
    Bundle b = task_bundle(sb, {"sh", "-c", "sleep 100 & exit 2"});
    auto& namespaces = b.config["linux"]["namespaces"].items();
    std::erase_if(namespaces, [](const Json& ns) { return ns["type"].str() == "pid"; });
    ShimUnderTest shim(sb, b, id);
    require_ok(shim.call("Create", shim.create_request()), "Create");
    require_ok(shim.call("Start", ShimUnderTest::id_request(id)), "Start");
    CHECK(wait_exit(shim) == 2);
    Output husk_state = sb.command({paths().husk, "--root", shim.root(), "state", id});
    INFO(husk_state.describe());
    const std::string procs = cgroup2_mount() + Json::parse(husk_state.out)["husk"]["cgroupPath"].str() + "/cgroup.procs";
    std::string left = read_file(procs);
    for (int i = 0; i < 100 && !left.empty(); ++i, ::usleep(20000)) left = read_file(procs);
    CHECK(left.empty());
    delete_and_shutdown(shim);
    check_nothing_left(sb);
}

}  // namespace husk::test
