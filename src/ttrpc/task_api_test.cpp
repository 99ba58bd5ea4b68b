#include "ttrpc/task_api.hpp"

#include <catch2/catch.hpp>
#include <string>

#include "ttrpc/test_bytes.hpp"

using namespace husk::ttrpc;

// The golden bytes were made with Debian's python3-protobuf 3.21: the messages of containerd 1.6.20's
// runtime/v2/task/shim.proto, api/events/task.proto, api/services/ttrpc/events/v1/events.proto and cgroups
// 1.0.4's v2/stats/metrics.proto, with the gogoproto options taken out, compiled by python3-grpc-tools'
// protoc, filled in Python as each test says, and printed with SerializeToString().hex().

TEST_CASE("a Create request decodes with its rootfs mounts and options", "[ttrpc]") {
    // CreateTaskRequest(id="c1", bundle="/run/b/c1", rootfs=[Mount(type="overlay", source="overlay",
    // options=["lowerdir=/l", "", "upperdir=/u"]), Mount(type="bind", source="/src")], terminal=True,
    // stdin="/fifo/in", stdout="/fifo/out", stderr="/fifo/err", checkpoint="/cp", parent_checkpoint="/pcp",
    // options=Any(type_url="containerd.runc.v1.Options", value=b"\x10\x01"))
    auto request = decode_create_task_request(from_hex(
        "0a02633112092f72756e2f622f63311a2e0a076f7665726c617912076f7665726c6179220b6c6f7765726469723d2f6c2200220b"
        "75707065726469723d2f751a0c0a0462696e6412042f73726320012a082f6669666f2f696e32092f6669666f2f6f75743a092f66"
        "69666f2f65727242032f63704a042f70637052200a1a636f6e7461696e6572642e72756e632e76312e4f7074696f6e7312021001"));
    REQUIRE(request);
    CHECK(request->id == "c1");
    CHECK(request->bundle == "/run/b/c1");
    REQUIRE(request->rootfs.size() == 2);
    CHECK(request->rootfs[0].type == "overlay");
    CHECK(request->rootfs[0].source == "overlay");
    CHECK(request->rootfs[0].target.empty());
    CHECK(request->rootfs[0].options == std::vector<std::string>{"lowerdir=/l", "", "upperdir=/u"});
    CHECK(request->rootfs[1].type == "bind");
    CHECK(request->rootfs[1].options.empty());
    CHECK(request->terminal);
    CHECK(request->stdin_path == "/fifo/in");
    CHECK(request->stdout_path == "/fifo/out");
    CHECK(request->stderr_path == "/fifo/err");
    CHECK(request->checkpoint == "/cp");
    CHECK(request->parent_checkpoint == "/pcp");
    REQUIRE(request->options);
    CHECK(request->options->type_url == "containerd.runc.v1.Options");
    CHECK(request->options->value == from_hex("1001"));
    CHECK(encode(request->rootfs[0]) == from_hex("0a076f7665726c617912076f7665726c6179220b6c6f7765726469723d2f6c2200220b"
                                                 "75707065726469723d2f75"));
}

TEST_CASE("an empty request is every field's default, with no Any", "[ttrpc]") {
    auto request = decode_create_task_request("");
    REQUIRE(request);
    CHECK(request->id.empty());
    CHECK(!request->options);
    CHECK(!request->terminal);
}

TEST_CASE("the small requests decode each field", "[ttrpc]") {
    auto kill = decode_kill_request(from_hex("0a0263311202653118092001"));  // id="c1", exec_id="e1", signal=9, all
    REQUIRE(kill);
    CHECK((kill->id == "c1" && kill->exec_id == "e1" && kill->signal == 9 && kill->all));
    auto exec = decode_exec_process_request(from_hex(
        "0a02633112026531180122022f692a022f6f32022f653a3f0a3974797065732e636f6e7461696e6572642e696f2f6f70656e636f6e"
        "7461696e6572732f72756e74696d652d737065632f312f50726f6365737312027b7d"));
    REQUIRE(exec);
    CHECK((exec->id == "c1" && exec->exec_id == "e1" && exec->terminal));
    CHECK((exec->stdin_path == "/i" && exec->stdout_path == "/o" && exec->stderr_path == "/e"));
    REQUIRE(exec->spec);
    CHECK(exec->spec->type_url == "types.containerd.io/opencontainers/runtime-spec/1/Process");
    CHECK(exec->spec->value == "{}");
    auto resize = decode_resize_pty_request(from_hex("0a0263311202653118502018"));
    REQUIRE(resize);
    CHECK((resize->exec_id == "e1" && resize->width == 80 && resize->height == 24));
    auto close = decode_close_io_request(from_hex("0a026331120265311801"));
    REQUIRE(close);
    CHECK((close->id == "c1" && close->exec_id == "e1" && close->stdin_close));
    auto checkpoint = decode_checkpoint_task_request(from_hex("0a02633112022f701a030a0175"));
    REQUIRE(checkpoint);
    CHECK((checkpoint->path == "/p" && checkpoint->options && checkpoint->options->type_url == "u"));
    CHECK(checkpoint->options->value.empty());
    auto update = decode_update_task_request(from_hex("0a02633112060a01721201011a060a0161120131"));
    REQUIRE(update);
    CHECK((update->resources && update->resources->type_url == "r" && update->resources->value == "\x01"));
    CHECK(update->annotations == std::vector<std::pair<std::string, std::string>>{{"a", "1"}});
    auto shutdown = decode_shutdown_request(from_hex("0a0263311001"));
    REQUIRE(shutdown);
    CHECK((shutdown->id == "c1" && shutdown->now));
    auto state = decode_id_request(from_hex("0a026331120265313801"));  // StateRequest(id="c1", exec_id="e1") + field 7
    REQUIRE(state);
    CHECK((state->id == "c1" && state->exec_id == "e1"));
    auto any = decode_any(from_hex("0a0175120101"));
    REQUIRE(any);
    CHECK((any->type_url == "u" && any->value == "\x01"));
}

TEST_CASE("a known field of the wrong wire type is an error naming the message and field", "[ttrpc]") {
    CHECK(decode_create_task_request(from_hex("2002")).has_value());
    CHECK(decode_create_task_request(from_hex("2200")).error().what ==
          std::string("CreateTaskRequest.terminal: expected varint"));
    CHECK(decode_create_task_request(from_hex("0801")).error().what ==
          std::string("CreateTaskRequest.id: expected length-delimited"));
    CHECK(decode_create_task_request(from_hex("1a022001")).error().what ==
          std::string("CreateTaskRequest.rootfs: Mount.options: expected length-delimited"));
    CHECK(decode_create_task_request(from_hex("520208ff")).error().what ==
          std::string("CreateTaskRequest.options: Any: truncated varint at offset 1"));
    CHECK(decode_update_task_request(from_hex("1a020801")).error().what ==
          std::string("UpdateTaskRequest.annotations: map entry.key: expected length-delimited"));
    CHECK(decode_kill_request(from_hex("1a00")).error().what == std::string("KillRequest.signal: expected varint"));
    CHECK(decode_kill_request(from_hex("0a")).error().what == std::string("KillRequest: truncated length at offset 1"));
}

TEST_CASE("responses encode as protobuf does, exited_at always written", "[ttrpc]") {
    CHECK(encode(PidResponse{4242}) == from_hex("089221"));
    CHECK(encode(PidResponse{}).empty());
    CHECK(encode(DeleteResponse{42, 137, {1700000000, 5}}) == from_hex("082a1089011a080880e2cfaa061005"));
    CHECK(encode(DeleteResponse{}) == from_hex("1a00"));
    StateResponse state{"c1", "/b", 42, TaskStatus::running, "/i", "/o", "/e", true, 0, {}, "e1"};
    CHECK(encode(state) == from_hex("0a02633112022f62182a20022a022f6932022f6f3a022f65400152005a026531"));
    CHECK(encode(PidsResponse{{{1}, {0}, {300}}}) == from_hex("0a0208010a000a0308ac02"));
    CHECK(encode(WaitResponse{1, {1, 999999999}}) == from_hex("08011208080110ff93ebdc03"));
    CHECK(encode(ConnectResponse{10, 11, "2"}) == from_hex("080a100b1a0132"));
    CHECK(encode(StatsResponse{}).empty());
    CHECK(encode(StatsResponse{Any{"u", ""}}) == from_hex("0a030a0175"));
}

TEST_CASE("a timestamp round-trips, negative seconds included", "[ttrpc]") {
    Timestamp before{-62135596800, 7};
    auto after = decode_timestamp(encode(before));
    REQUIRE(after);
    CHECK(after->seconds == before.seconds);
    CHECK(after->nanos == 7);
    CHECK(timestamp_now().seconds > 1'700'000'000);
}

TEST_CASE("an exit event goes to containerd as protobuf encodes the Forward request", "[ttrpc]") {
    // ForwardRequest(envelope=Envelope(timestamp=Timestamp(seconds=1700000001, nanos=2), namespace="default",
    // topic="/tasks/exit", event=Any(type_url="containerd.events.TaskExit", value=TaskExit(container_id="c1",
    // id="c1", pid=42, exit_status=1, exited_at=Timestamp(seconds=1700000000)).SerializeToString())))
    Event event = event_of(TaskExit{"c1", "c1", 42, 1, {1700000000, 0}});
    CHECK(event.topic == "/tasks/exit");
    CHECK(event.event.type_url == "containerd.events.TaskExit");
    CHECK(encode_forward_request({1700000001, 2}, "default", event) ==
          from_hex("0a540a080881e2cfaa061002120764656661756c741a0b2f7461736b732f6578697422320a1a636f6e7461696e6572642e"
                   "6576656e74732e5461736b4578697412140a02633112026331182a20012a060880e2cfaa06"));
}

TEST_CASE("each event has its topic and type URL", "[ttrpc]") {
    // TaskCreate(container_id="c1", bundle="/b", rootfs=[Mount(type="bind", source="/s", options=["rbind"])],
    // io=TaskIO(stdin="/i", terminal=True), pid=7)
    Event create = event_of(TaskCreate{"c1", "/b", {{"bind", "/s", "", {"rbind"}}}, {"/i", "", "", true}, "", 7});
    CHECK(create.topic == "/tasks/create");
    CHECK(create.event.type_url == "containerd.events.TaskCreate");
    CHECK(create.event.value == from_hex("0a02633112022f621a110a0462696e6412022f7322057262696e6422060a022f6920013007"));
    CHECK(event_of(TaskCreate{"c1", "", {}, {}, "", 7}).event.value == from_hex("0a02633122003007"));
    CHECK(event_of(TaskStart{"c1", 7}).topic == "/tasks/start");
    CHECK(event_of(TaskStart{"c1", 7}).event.value == from_hex("0a0263311007"));
    CHECK(event_of(TaskDelete{"c1", 7, 0, {}, "c1"}).topic == "/tasks/delete");
    CHECK(event_of(TaskDelete{"c1", 7, 0, {}, "c1"}).event.value == from_hex("0a02633110072200" "2a026331"));
    CHECK(event_of(TaskOOM{"c1"}).topic == "/tasks/oom");
    CHECK(event_of(TaskOOM{"c1"}).event.type_url == "containerd.events.TaskOOM");
    CHECK(event_of(TaskExecAdded{"c1", "e1"}).topic == "/tasks/exec-added");
    CHECK(event_of(TaskExecAdded{"c1", "e1"}).event.value == from_hex("0a02633112026531"));
    CHECK(event_of(TaskExecStarted{"c1", "e1", 9}).topic == "/tasks/exec-started");
    CHECK(event_of(TaskExecStarted{"c1", "e1", 9}).event.type_url == "containerd.events.TaskExecStarted");
    CHECK(event_of(TaskPaused{"c1"}).topic == "/tasks/paused");
    CHECK(event_of(TaskResumed{"c1"}).event.type_url == "containerd.events.TaskResumed");
    CHECK(event_of(TaskResumed{"c1"}).event.value == from_hex("0a026331"));
}

TEST_CASE("cgroup v2 metrics encode as containerd's cgroups package does", "[ttrpc]") {
    // Metrics(pids=PidsStat(current=3, limit=100), cpu=CPUStat(usage_usec=1000, user_usec=600, system_usec=400),
    // memory=MemoryStat(anon=4096, usage=8192, usage_limit=2**64-1, swap_limit=35), io=IOStat(usage=[IOEntry(
    // major=8, rbytes=512, wbytes=1024, rios=1, wios=2)]), hugetlb=[HugeTlbStat(pagesize="2MB")],
    // memory_events=MemoryEvents(oom=1, oom_kill=1))
    Metrics metrics;
    metrics.pids = {3, 100};
    metrics.cpu = {1000, 600, 400, 0, 0, 0};
    metrics.memory.anon = 4096;
    metrics.memory.usage = 8192;
    metrics.memory.usage_limit = ~std::uint64_t{0};
    metrics.memory.swap_limit = 35;
    metrics.io.usage = {{8, 0, 512, 1024, 1, 2}};
    metrics.hugetlb = {{0, 0, "2MB"}};
    metrics.memory_events.oom = 1;
    metrics.memory_events.oom_kill = 1;
    Any any = encode_metrics(metrics);
    CHECK(any.type_url == "io.containerd.cgroups.v2.Metrics");
    CHECK(any.value == from_hex("0a0408031064120908e80710d8041890032216088020800280408802ffffffffffffffffff01980223320e"
                                "0a0c0808188004208008280130023a051a03324d42420420012801"));
}
