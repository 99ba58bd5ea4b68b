"""The verdict of one run, as husk writes it (husk(8), VERDICT), turned into typed values.

The field names follow husk's JSON with Python spelling and the unit kept in the name (wallTimeMs ->
wall_time_ms). Everything husk wrote stays available, unchanged, in Verdict.raw.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping, Optional, Tuple

from .errors import HuskError

# Every exit reason husk(8) documents (STATE, husk.exit.reason; VERDICT adds "refused" and "tenant-quota").
REASONS = (
    "exited",        # the program exited by itself
    "signaled",      # a signal husk did not send ended it (kill(1) from outside, a crash)
    "killed",        # husk stopped it on request: a cancel, husk kill, delete --force, --die-with-parent
    "timeout",       # the wall-time limit fired
    "output-limit",  # the program wrote past the output cap
    "cpu-limit",     # the CPU-time budget was used up
    "network-limit", # an operation went past the network-operation budget (--net-ops-kill)
    "oom",           # the kernel's OOM killer ended it at the memory limit
    "setup-failed",  # husk failed after accepting the config, before the program ran (exec, a mount, a hook)
    "refused",       # husk refused the flags or the config; nothing was created
    "tenant-quota",  # the run's tenant has used up a ceiling; husk refused the run, nothing was created
    "unknown",       # the exit is not known; detail says why
)

# The reasons that mean one of husk's own limits stopped the run.
LIMIT_REASONS = frozenset({"timeout", "output-limit", "cpu-limit", "network-limit", "oom"})


def _optional_int(source: Mapping[str, Any], key: str) -> Optional[int]:
    value = source.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        raise HuskError(f"verdict: {key} is not an integer: {value!r}")
    return value


@dataclass(frozen=True)
class Usage:
    """What the run used (husk(8) STATE, husk.usage). A counter husk could not read, or read as 0, is None.

    stdout_bytes and stderr_bytes are counted by husk's output pump, so only when an output cap was set.
    """

    cpu_usec: Optional[int] = None
    memory_peak_bytes: Optional[int] = None
    pids_peak: Optional[int] = None
    stdout_bytes: Optional[int] = None
    stderr_bytes: Optional[int] = None
    net_ops: Optional[int] = None  # connects and addressed sends the allow-list let through (past the budget too)

    @classmethod
    def from_json(cls, usage: Mapping[str, Any]) -> "Usage":
        return cls(
            cpu_usec=_optional_int(usage, "cpuUsec"),
            memory_peak_bytes=_optional_int(usage, "memoryPeakBytes"),
            pids_peak=_optional_int(usage, "pidsPeak"),
            stdout_bytes=_optional_int(usage, "stdoutBytes"),
            stderr_bytes=_optional_int(usage, "stderrBytes"),
            net_ops=_optional_int(usage, "netOps"),
        )


@dataclass(frozen=True)
class Limits:
    """husk's limits and policies in force for the run (husk(8) VERDICT, limits). kill_grace_ms and
    stop_signal are always there; the others only when set."""

    kill_grace_ms: int
    stop_signal: str
    timeout_ms: Optional[int] = None
    output_limit_bytes: Optional[int] = None
    cpu_limit_usec: Optional[int] = None
    net_ops: Optional[int] = None
    net_ops_kill: bool = False
    net_allow: Optional[Tuple[str, ...]] = None
    tenant: Optional[str] = None
    die_with_parent: bool = False
    address_space_bytes: Optional[int] = None

    @classmethod
    def from_json(cls, limits: Mapping[str, Any]) -> "Limits":
        grace = _optional_int(limits, "killGraceMs")
        signal = limits.get("stopSignal")
        if grace is None or not isinstance(signal, str):
            raise HuskError(f"verdict: limits without killGraceMs or stopSignal: {dict(limits)!r}")
        return cls(
            kill_grace_ms=grace,
            stop_signal=signal,
            timeout_ms=_optional_int(limits, "timeoutMs"),
            output_limit_bytes=_optional_int(limits, "outputLimitBytes"),
            cpu_limit_usec=_optional_int(limits, "cpuLimitUsec"),
            net_ops=_optional_int(limits, "netOps"),
            net_ops_kill=limits.get("netOpsKill") is True,
            net_allow=tuple(str(entry) for entry in limits["netAllow"]) if isinstance(limits.get("netAllow"), list) else None,
            tenant=limits.get("tenant") if isinstance(limits.get("tenant"), str) else None,
            die_with_parent=limits.get("dieWithParent") is True,
            address_space_bytes=_optional_int(limits, "addressSpaceBytes"),
        )


@dataclass(frozen=True)
class Verdict:
    """How a run ended, decided by husk from what it observed (never from the exit code alone).

    reason is one of REASONS and detail is husk's sentence about it. status is what husk exited with: the
    program's code, 128 + a signal, 121-124 when a limit fired and the program then exited by itself, 2
    when husk refused the run (reason "refused" or "tenant-quota"), 1 after any other error. exit_code is the program's own exit code (128 + signal when a
    signal ended it) and None when the program never exited (refused, setup-failed) or husk could not
    tell; signal is the signal that ended it, None for a normal exit.
    """

    id: str
    reason: str
    detail: str
    status: int
    exit_code: Optional[int] = None
    signal: Optional[int] = None
    exited_after_limit: bool = False
    started: Optional[str] = None
    finished: Optional[str] = None
    wall_time_ms: Optional[int] = None
    factors: Mapping[str, int] = field(default_factory=dict)
    usage: Usage = field(default_factory=Usage)
    security: Optional[Mapping[str, Any]] = None
    limits: Optional[Limits] = None
    raw: Mapping[str, Any] = field(default_factory=dict, repr=False, compare=False)

    @property
    def ok(self) -> bool:
        """True when the program exited by itself with code 0 and no limit fired."""
        return self.reason == "exited" and self.exit_code == 0

    @property
    def limited(self) -> bool:
        """True when one of the limits (wall time, output cap, CPU budget, network budget, memory) ended the run."""
        return self.reason in LIMIT_REASONS

    @classmethod
    def from_json(cls, verdict: Mapping[str, Any]) -> "Verdict":
        """Reads the object husk wrote to --verdict/--verdict-fd (or the "verdict" of the last json line)."""
        if not isinstance(verdict, Mapping):
            raise HuskError(f"verdict is not a JSON object: {verdict!r}")
        exit_ = verdict.get("exit")
        if not isinstance(exit_, Mapping) or not isinstance(exit_.get("reason"), str):
            raise HuskError(f"verdict without exit.reason: {dict(verdict)!r}")
        status = _optional_int(verdict, "status")
        if status is None:
            raise HuskError(f"verdict without status: {dict(verdict)!r}")
        # husk writes code -1 and signal 0 when the program never exited, and leaves both out when the
        # monitor was lost (husk(8) VERDICT and STATE).
        code = _optional_int(exit_, "code")
        signal = _optional_int(exit_, "signal")
        factors = {}
        for factor in verdict.get("factors") or ():
            factors[str(factor.get("kind"))] = _optional_int(factor, "count") or 0
        limits = verdict.get("limits")
        return cls(
            id=str(verdict.get("id", "")),
            reason=exit_["reason"],
            detail=str(exit_.get("detail", "")),
            status=status,
            exit_code=None if code is None or code < 0 else code,
            signal=signal or None,
            exited_after_limit=exit_.get("exitedAfterLimit") is True,
            started=verdict.get("started"),
            finished=verdict.get("finished"),
            wall_time_ms=_optional_int(verdict, "wallTimeMs"),
            factors=factors,
            usage=Usage.from_json(verdict.get("usage") or {}),
            security=verdict.get("security"),
            limits=Limits.from_json(limits) if limits is not None else None,
            raw=verdict,
        )
