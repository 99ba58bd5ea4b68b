"""The settings of one sandbox and the `husk sandbox` flags they become (husk(8), sandbox).

Each setting maps to one flag. Values are not judged here: husk checks them all, and a value it refuses
gives a Verdict with reason "refused", exactly as on the command line. Only a value of a wrong Python type
raises (TypeError) before husk runs.
"""

from __future__ import annotations

import inspect
import os
from dataclasses import dataclass, fields
from typing import Iterable, Mapping, Optional, Union

Duration = Union[int, float, str]  # seconds, or husk's own syntax: "500ms", "30s", "2m", "1h"
Size = Union[int, str]  # bytes, or husk's own syntax: "64k", "64KiB", "10MB"
PathLike = Union[str, "os.PathLike[str]"]
Bind = Union[PathLike, tuple]  # "SRC", "SRC:DST", or (SRC, DST)


def duration_arg(name: str, value: Duration) -> str:
    """A number of seconds as husk reads it ("2s", "0.25s"), or husk's own string as it is."""
    if isinstance(value, str):
        return value
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"{name}: want seconds (int or float) or a string such as '500ms', not {value!r}")
    if isinstance(value, int):
        return f"{value}s"
    # husk counts whole microseconds; six decimals say exactly that, without an exponent.
    text = f"{value:.6f}".rstrip("0").rstrip(".")
    return f"{text}s"


def size_arg(name: str, value: Size) -> str:
    """A number of bytes, or husk's own size string ("64m", "1KiB") as it is."""
    if isinstance(value, str):
        return value
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{name}: want bytes (int) or a string such as '64m', not {value!r}")
    return str(value)


def count_arg(name: str, value: Union[int, str]) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{name}: want an int, not {value!r}")
    return str(value)


def cpus_arg(name: str, value: Union[int, float, str]) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"{name}: want a number of CPUs, not {value!r}")
    return f"{value:g}" if isinstance(value, float) else str(value)


def bind_arg(name: str, bind: Bind) -> str:
    if isinstance(bind, tuple):
        if len(bind) != 2:
            raise TypeError(f"{name}: want (SRC, DST), not {bind!r}")
        return f"{os.fspath(bind[0])}:{os.fspath(bind[1])}"
    try:
        return os.fspath(bind)
    except TypeError:
        raise TypeError(f"{name}: want a path, 'SRC:DST' or (SRC, DST), not {bind!r}") from None


def env_args(env: Union[Mapping[str, str], Iterable[str]]) -> list:
    items = [f"{k}={v}" for k, v in env.items()] if isinstance(env, Mapping) else list(env)
    for item in items:
        if not isinstance(item, str) or "=" not in item:
            raise TypeError(f"env: want a mapping or 'KEY=VALUE' strings, not {item!r}")
    return items


def _binds(name: str, binds: Iterable[Bind]) -> list:
    if isinstance(binds, (str, bytes)):
        raise TypeError(f"{name}: want a list of binds, not the single string {binds!r}")
    return [bind_arg(name, bind) for bind in binds]


def strings(name: str, values: Iterable) -> list:
    if isinstance(values, (str, bytes)):
        raise TypeError(f"{name}: want a list, not the single string {values!r}")
    return [str(v) if isinstance(v, int) and not isinstance(v, bool) else os.fspath(v) for v in values]


@dataclass(frozen=True, kw_only=True)
class Options:
    """Everything `husk sandbox` is told, one field per flag. None (or an empty list) leaves husk's
    default, which is the hardened one (docs/sandbox.md): every namespace with a user namespace, uid/gid
    65534 inside, no capabilities, husk's seccomp profile, no network but loopback, a read-only view of
    the host's /usr, /bin and /lib*.

    Durations are seconds (int or float) or husk's strings ("500ms", "2m"); sizes are bytes (int) or
    husk's strings ("64m", "1KiB").
    """

    timeout: Optional[Duration] = None         # --timeout: wall-time limit
    kill_grace: Optional[Duration] = None      # --kill-grace: stop signal -> kill (husk's default 5s)
    stop_signal: Optional[Union[int, str]] = None  # --stop-signal: first signal at the deadline (SIGTERM)
    cpu_limit: Optional[Duration] = None       # --cpu-limit: CPU-time budget of the whole sandbox
    cpus: Optional[Union[int, float, str]] = None  # --cpus: CPU rate (needs the cpu controller)
    memory: Optional[Size] = None              # --memory (needs the memory controller)
    pids: Optional[Union[int, str]] = None     # --pids (needs the pids controller)
    output_limit: Optional[Size] = None        # --output-limit: stdout + stderr bytes together
    nofile: Optional[Union[int, str]] = None   # --nofile: open files
    fsize: Optional[Size] = None               # --fsize: largest file it may write
    nproc: Optional[Union[int, str]] = None    # --nproc: processes and threads (RLIMIT_NPROC; husk's default 1024)
    tmp_size: Optional[Size] = None            # --tmp-size: size of the /tmp tmpfs (husk's default 256m)
    address_space: Optional[Size] = None       # --address-space: RLIMIT_AS of each process, where --memory cannot be
    net: str = "none"                          # --net none|host
    rootfs: Optional[PathLike] = None          # --rootfs: a root filesystem instead of the host view
    binds: Iterable[Bind] = ()                 # --bind SRC[:DST], read-only
    binds_rw: Iterable[Bind] = ()              # --bind-rw SRC[:DST]
    env: Optional[Union[Mapping[str, str], Iterable[str]]] = None  # --env K=V each
    clear_env: bool = False                    # --clear-env
    cwd: Optional[PathLike] = None             # --cwd, inside the sandbox
    seccomp: Optional[PathLike] = None         # --seccomp default|unconfined|FILE
    caps: Iterable[str] = ()                   # --cap CAP each (relaxation)
    userns: bool = True                        # False: --no-userns (relaxation)
    landlock_read: Iterable[PathLike] = ()     # --landlock-read PATH each
    landlock_write: Iterable[PathLike] = ()    # --landlock-write PATH each
    landlock_connect: Iterable[int] = ()       # --landlock-connect PORT each
    net_allow: Iterable[str] = ()              # --net-allow CIDR[:PORT] each (docs/network-policy.md)
    net_ops: Optional[Union[int, str]] = None  # --net-ops: budget of connects and addressed sends
    net_ops_kill: bool = False                 # --net-ops-kill: stop at the first operation past net_ops
    tenant: Optional[str] = None               # --tenant: charge the run to this tenant (set_tenant)
    id: Optional[str] = None                   # --id (husk generates sandbox-... otherwise)
    die_with_parent: bool = True               # --die-with-parent: this Python process dying kills the run
    root: Optional[PathLike] = None            # husk --root: the state directory
    extra_args: Iterable[str] = ()             # further `husk sandbox` flags, as they are

    def global_args(self) -> list:
        """husk's options that come before the verb."""
        return ["--root", os.fspath(self.root)] if self.root is not None else []

    def sandbox_args(self) -> list:
        """The flags of `husk sandbox`, in the order of the fields."""
        args = []

        def flag(name, value):
            args.extend((name, value))

        for name, convert, value in (
            ("--timeout", duration_arg, self.timeout),
            ("--kill-grace", duration_arg, self.kill_grace),
            ("--cpu-limit", duration_arg, self.cpu_limit),
            ("--cpus", cpus_arg, self.cpus),
            ("--memory", size_arg, self.memory),
            ("--pids", count_arg, self.pids),
            ("--output-limit", size_arg, self.output_limit),
            ("--nofile", count_arg, self.nofile),
            ("--fsize", size_arg, self.fsize),
            ("--nproc", count_arg, self.nproc),
            ("--tmp-size", size_arg, self.tmp_size),
            ("--address-space", size_arg, self.address_space),
            ("--stop-signal", count_arg, self.stop_signal),
        ):
            if value is not None:
                flag(name, convert(name.lstrip("-").replace("-", "_"), value))
        if not isinstance(self.net, str):
            raise TypeError(f"net: want 'none' or 'host', not {self.net!r}")
        flag("--net", self.net)
        if self.rootfs is not None:
            flag("--rootfs", os.fspath(self.rootfs))
        for bind in _binds("binds", self.binds):
            flag("--bind", bind)
        for bind in _binds("binds_rw", self.binds_rw):
            flag("--bind-rw", bind)
        if self.env is not None:
            for item in env_args(self.env):
                flag("--env", item)
        if self.clear_env:
            args.append("--clear-env")
        if self.cwd is not None:
            flag("--cwd", os.fspath(self.cwd))
        if self.seccomp is not None:
            flag("--seccomp", os.fspath(self.seccomp))
        for cap in strings("caps", self.caps):
            flag("--cap", cap)
        if not self.userns:
            args.append("--no-userns")
        for path in strings("landlock_read", self.landlock_read):
            flag("--landlock-read", path)
        for path in strings("landlock_write", self.landlock_write):
            flag("--landlock-write", path)
        for port in strings("landlock_connect", self.landlock_connect):
            flag("--landlock-connect", port)
        for entry in strings("net_allow", self.net_allow):
            flag("--net-allow", entry)
        if self.net_ops is not None:
            flag("--net-ops", count_arg("net_ops", self.net_ops))
        if self.net_ops_kill:
            args.append("--net-ops-kill")
        if self.tenant is not None:
            if not isinstance(self.tenant, str):
                raise TypeError(f"tenant: want a tenant's name, not {self.tenant!r}")
            flag("--tenant", self.tenant)
        if self.id is not None:
            flag("--id", self.id)
        if self.die_with_parent:
            args.append("--die-with-parent")
        args.extend(strings("extra_args", self.extra_args))
        return args


OPTION_NAMES = frozenset(f.name for f in fields(Options))


def with_option_parameters(function):
    """Shows each field of Options as a keyword parameter of function (which takes them as **options) in
    help() and inspect.signature(): the options are declared once, here, and listed wherever they apply."""
    signature = inspect.signature(function)
    parameters = [p for p in signature.parameters.values() if p.kind is not inspect.Parameter.VAR_KEYWORD]
    parameters += [inspect.Parameter(f.name, inspect.Parameter.KEYWORD_ONLY, default=f.default, annotation=f.type)
                   for f in fields(Options)]
    function.__signature__ = signature.replace(parameters=parameters)
    return function
