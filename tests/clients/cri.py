"""A small CRI client (runtime.v1 over gRPC) for the client suite tests/clients/cri.sh, standing in for
crictl, which Debian 12 does not package. One call per command, output as plain lines for the shell:

    cri.py [--address unix:///PATH] COMMAND ARG...

    version                          runtime name and version
    ready                            exits 0 once the runtime reports RuntimeReady
    image ID|REF                     the image's id, or exit 1 when the CRI plugin does not know it
    runp NAME HANDLER [--log-dir D] [--cgroup-parent P]
                                     a host-network pod sandbox (no CNI); prints its id. The config is
                                     kept in $CRI_STATE/NAME.pod, since CreateContainer sends it again
    podstatus POD                    "state handler pid" of the sandbox
    stopp POD / rmp POD              StopPodSandbox / RemovePodSandbox
    pods / ctrs                      the ids the CRI plugin lists, one a line
    create POD NAME IMAGE [--memory B] [--unified K=V]... [--cpu-quota Q --cpu-period P]
           [--seccomp runtime-default] [--read-only] [--user UID] [--group GID] [--log FILE]
           [--pid-mode pod|container] [--start] -- COMMAND...
                                     CreateContainer in POD's sandbox; prints the container's id, and with
                                     --start also StartContainer and the pid ContainerStatus reports
    start ID / rm ID
    stop ID TIMEOUT [--rm]           StopContainer, then RemoveContainer with --rm
    status ID                        "state exit_code reason pid" (pid 0 once it exited)
    update ID [--memory B] [--unified K=V]...
    exec ID TIMEOUT COMMAND...       ExecSync: the command's stdout and stderr, and its exit code

A failed RPC prints its status code and details on stderr and exits 2.

    cri.py serve REQUESTS RESPONSES  one command after the other, from the FIFO REQUESTS: a line of
                                     arguments, each ended by \x1f; to the FIFO RESPONSES: the
                                     command's output, a line each, "O TEXT" (stdout) or "E TEXT"
                                     (stderr), then "S STATUS". Under TCG each start of the interpreter
                                     and of grpc costs over a second; cri.sh starts it once.

Runs on Debian's python3 with python3-grpcio, and with stubs that tests/clients/cri-prepare.sh generates
from cri.proto with python3-grpc-tools. In the guest python runs with -S (no site), so Debian's
dist-packages is added here.
"""
import argparse
import contextlib
import io
import json
import os
import sys

sys.path.append("/usr/lib/python3/dist-packages")

import grpc  # noqa: E402

import cri_pb2 as api  # noqa: E402
import cri_pb2_grpc as rpc  # noqa: E402

STATE = os.environ.get("CRI_STATE", "/tmp/cri/client")
TIMEOUT = 120  # seconds for any one RPC (containerd under TCG is slow; ExecSync adds its own)

STATES = {api.CONTAINER_CREATED: "created", api.CONTAINER_RUNNING: "running",
          api.CONTAINER_EXITED: "exited", api.CONTAINER_UNKNOWN: "unknown"}


def key_values(pairs):
    out = {}
    for pair in pairs or []:
        key, sep, value = pair.partition("=")
        if not sep:
            raise SystemExit(f"cri.py: {pair!r} is not KEY=VALUE")
        out[key] = value
    return out


def pod_config_path(name):
    return os.path.join(STATE, name + ".pod")


def read_pod_config(pod_id):
    # The sandbox's config as RunPodSandbox got it: found through the name the pod id was stored under.
    with open(os.path.join(STATE, pod_id + ".id")) as f:
        name = f.read().strip()
    config = api.PodSandboxConfig()
    with open(pod_config_path(name), "rb") as f:
        config.ParseFromString(f.read())
    return config


def run_pod(stubs, args):
    config = api.PodSandboxConfig(
        metadata=api.PodSandboxMetadata(name=args.name, uid="uid-" + args.name, namespace="clients"),
        log_directory=args.log_dir or "",
        linux=api.LinuxPodSandboxConfig(
            cgroup_parent=args.cgroup_parent or "",
            # Host network: no CNI; the pod's own pid namespace (the kubelet's default for containers).
            security_context=api.LinuxSandboxSecurityContext(
                namespace_options=api.NamespaceOption(network=api.NODE, pid=api.CONTAINER, ipc=api.POD))))
    response = stubs.runtime.RunPodSandbox(
        api.RunPodSandboxRequest(config=config, runtime_handler=args.handler), timeout=TIMEOUT)
    os.makedirs(STATE, exist_ok=True)
    with open(pod_config_path(args.name), "wb") as f:
        f.write(config.SerializeToString())
    with open(os.path.join(STATE, response.pod_sandbox_id + ".id"), "w") as f:
        f.write(args.name + "\n")
    print(response.pod_sandbox_id)


def pod_status(stubs, args):
    response = stubs.runtime.PodSandboxStatus(
        api.PodSandboxStatusRequest(pod_sandbox_id=args.id, verbose=True), timeout=TIMEOUT)
    info = json.loads(response.info.get("info", "{}"))
    state = "ready" if response.status.state == api.SANDBOX_READY else "notready"
    print(state, response.status.runtime_handler or "-", info.get("pid", 0))


def resources(args):
    linux = api.LinuxContainerResources(unified=key_values(args.unified))
    if args.memory:
        linux.memory_limit_in_bytes = args.memory
    if args.cpu_quota:
        linux.cpu_quota = args.cpu_quota
        linux.cpu_period = args.cpu_period
    return linux


def create(stubs, args):
    pod = read_pod_config(args.pod)
    security = api.LinuxContainerSecurityContext(
        namespace_options=api.NamespaceOption(
            network=api.NODE, ipc=api.POD, pid=api.POD if args.pid_mode == "pod" else api.CONTAINER),
        readonly_rootfs=args.read_only)
    # RuntimeDefault is the enum's 0, which proto3 does not send: the message must be marked present itself.
    security.seccomp.SetInParent()
    if args.seccomp == "runtime-default":
        security.seccomp.profile_type = api.SecurityProfile.RuntimeDefault
    else:
        security.seccomp.profile_type = api.SecurityProfile.Unconfined
    if args.user is not None:
        security.run_as_user.value = args.user
    if args.group is not None:
        security.run_as_group.value = args.group
    config = api.ContainerConfig(
        metadata=api.ContainerMetadata(name=args.name),
        image=api.ImageSpec(image=args.image),
        command=args.command,
        log_path=args.log or "",
        linux=api.LinuxContainerConfig(resources=resources(args), security_context=security))
    response = stubs.runtime.CreateContainer(
        api.CreateContainerRequest(pod_sandbox_id=args.pod, config=config, sandbox_config=pod),
        timeout=TIMEOUT)
    if not args.start:
        print(response.container_id)
        return
    # Several calls in one process: under TCG each start of the interpreter and grpc costs a second or two.
    stubs.runtime.StartContainer(api.StartContainerRequest(container_id=response.container_id), timeout=TIMEOUT)
    status = stubs.runtime.ContainerStatus(
        api.ContainerStatusRequest(container_id=response.container_id, verbose=True), timeout=TIMEOUT)
    print(response.container_id, json.loads(status.info.get("info", "{}")).get("pid", 0))


def status(stubs, args):
    response = stubs.runtime.ContainerStatus(
        api.ContainerStatusRequest(container_id=args.id, verbose=True), timeout=TIMEOUT)
    info = json.loads(response.info.get("info", "{}"))
    s = response.status
    print(STATES.get(s.state, s.state), s.exit_code, s.reason or "-", info.get("pid", 0))


def exec_sync(stubs, args):
    response = stubs.runtime.ExecSync(
        api.ExecSyncRequest(container_id=args.id, cmd=args.command, timeout=args.timeout),
        timeout=TIMEOUT + args.timeout)
    sys.stdout.write(response.stdout.decode("utf-8", "replace"))
    sys.stderr.write(response.stderr.decode("utf-8", "replace"))
    return response.exit_code


def image(stubs, args):
    response = stubs.image.ImageStatus(
        api.ImageStatusRequest(image=api.ImageSpec(image=args.ref)), timeout=TIMEOUT)
    if not response.image.id:
        print(f"cri.py: the CRI plugin has no image {args.ref}", file=sys.stderr)
        return 1
    print(response.image.id)
    return 0


def ready(stubs, _args):
    response = stubs.runtime.Status(api.StatusRequest(), timeout=TIMEOUT)
    conditions = {c.type: c.status for c in response.status.conditions}
    return 0 if conditions.get("RuntimeReady") else 1


def parser():
    p = argparse.ArgumentParser(prog="cri.py")
    p.add_argument("--address", default=os.environ.get("CRI_ADDRESS", "unix:///tmp/cri/containerd.sock"))
    sub = p.add_subparsers(dest="command_name", required=True)
    sub.add_parser("version")
    sub.add_parser("ready")
    sub.add_parser("pods")
    sub.add_parser("ctrs")
    c = sub.add_parser("image")
    c.add_argument("ref")
    c = sub.add_parser("runp")
    c.add_argument("name")
    c.add_argument("handler")
    c.add_argument("--log-dir")
    c.add_argument("--cgroup-parent")
    for name in ("podstatus", "stopp", "rmp", "start", "rm", "status"):
        sub.add_parser(name).add_argument("id")
    c = sub.add_parser("stop")
    c.add_argument("id")
    c.add_argument("timeout", type=int)
    c.add_argument("--rm", action="store_true")
    for name in ("create", "update"):
        c = sub.add_parser(name)
        if name == "create":
            c.add_argument("pod")
            c.add_argument("name")
            c.add_argument("image")
            c.add_argument("--seccomp", choices=["runtime-default", "unconfined"], default="unconfined")
            c.add_argument("--read-only", action="store_true")
            c.add_argument("--user", type=int)
            c.add_argument("--group", type=int)
            c.add_argument("--log")
            c.add_argument("--pid-mode", choices=["pod", "container"], default="container")
            c.add_argument("--start", action="store_true")
            c.add_argument("command", nargs="+")
        else:
            c.add_argument("id")
        c.add_argument("--memory", type=int)
        c.add_argument("--unified", action="append")
        c.add_argument("--cpu-quota", type=int)
        c.add_argument("--cpu-period", type=int, default=100000)
    c = sub.add_parser("exec")
    c.add_argument("id")
    c.add_argument("timeout", type=int)
    c.add_argument("command", nargs=argparse.REMAINDER)
    return p


class Stubs:
    def __init__(self, channel):
        self.runtime = rpc.RuntimeServiceStub(channel)
        self.image = rpc.ImageServiceStub(channel)


def call(stubs, args):
    r = stubs.runtime
    name = args.command_name
    if name == "version":
        v = r.Version(api.VersionRequest(), timeout=TIMEOUT)
        print(v.runtime_name, v.runtime_version, v.runtime_api_version)
    elif name == "ready":
        return ready(stubs, args)
    elif name == "image":
        return image(stubs, args)
    elif name == "runp":
        run_pod(stubs, args)
    elif name == "podstatus":
        pod_status(stubs, args)
    elif name == "stopp":
        r.StopPodSandbox(api.StopPodSandboxRequest(pod_sandbox_id=args.id), timeout=TIMEOUT)
    elif name == "rmp":
        r.RemovePodSandbox(api.RemovePodSandboxRequest(pod_sandbox_id=args.id), timeout=TIMEOUT)
    elif name == "pods":
        for item in r.ListPodSandbox(api.ListPodSandboxRequest(), timeout=TIMEOUT).items:
            print(item.id)
    elif name == "ctrs":
        for item in r.ListContainers(api.ListContainersRequest(), timeout=TIMEOUT).containers:
            print(item.id)
    elif name == "create":
        create(stubs, args)
    elif name == "start":
        r.StartContainer(api.StartContainerRequest(container_id=args.id), timeout=TIMEOUT)
    elif name == "stop":
        r.StopContainer(api.StopContainerRequest(container_id=args.id, timeout=args.timeout),
                        timeout=TIMEOUT + args.timeout)
        if args.rm:
            r.RemoveContainer(api.RemoveContainerRequest(container_id=args.id), timeout=TIMEOUT)
    elif name == "rm":
        r.RemoveContainer(api.RemoveContainerRequest(container_id=args.id), timeout=TIMEOUT)
    elif name == "status":
        status(stubs, args)
    elif name == "update":
        r.UpdateContainerResources(
            api.UpdateContainerResourcesRequest(container_id=args.id, linux=resources(args)), timeout=TIMEOUT)
    elif name == "exec":
        return exec_sync(stubs, args)
    return 0


def serve(requests, responses):
    # O_RDWR: the FIFO never reports EOF between two writers; the responses end is opened once.
    with open(requests, "r+b", buffering=0) as incoming, open(responses, "wb", buffering=0) as outgoing:
        for line in iter(incoming.readline, b""):
            argv = line.rstrip(b"\n").decode().split("\x1f")[:-1]
            out, err = io.StringIO(), io.StringIO()
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                try:
                    status = main(argv)
                except SystemExit as e:  # argparse's errors
                    status = e.code if isinstance(e.code, int) else 2
                except Exception as e:  # noqa: BLE001 -- one bad command must not end the others
                    print(f"cri.py: {type(e).__name__}: {e}", file=sys.stderr)
                    status = 2
            reply = [f"O {text}" for text in out.getvalue().splitlines()]
            reply += [f"E {text}" for text in err.getvalue().splitlines()]
            reply.append(f"S {status or 0}")
            outgoing.write(("\n".join(reply) + "\n").encode())


def main(argv):
    if argv[:1] == ["serve"] and len(argv) == 3:
        serve(argv[1], argv[2])
        return 0
    args = parser().parse_args(argv)
    with grpc.insecure_channel(args.address) as channel:
        try:
            return call(Stubs(channel), args)
        except grpc.RpcError as e:
            print(f"cri.py {args.command_name}: {e.code().name}: {e.details()}", file=sys.stderr)
            return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
