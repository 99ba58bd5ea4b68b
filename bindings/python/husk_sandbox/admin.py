"""husk's verbs beside `husk sandbox` that a code runner needs: tenants (husk(8), tenant; docs/tenants.md),
husk gc, and the config a sandbox would run (--print-config).

Each runs the husk binary once and waits for it. Unlike a run, whose ending is a Verdict, these have no
verdict to give: a command husk refuses or fails raises HuskCommandError with husk's message and status.
"""

from __future__ import annotations

import json
import os
import subprocess
from typing import Any, Dict, List, Mapping, Optional, Sequence, Union

from .errors import HuskCommandError, HuskError, HuskStartError
from .options import (Duration, Options, PathLike, Size, count_arg, cpus_arg, duration_arg, size_arg,
                      with_option_parameters)
from .sandbox import _argv

Husk = Union[str, "os.PathLike[str]"]


def _husk(husk: Husk, root: Optional[PathLike], args: Sequence[str]) -> str:
    """Runs `husk [--root ROOT] ARGS...`; its stdout, or HuskCommandError with its status and stderr."""
    argv = [os.fspath(husk)] + (["--root", os.fspath(root)] if root is not None else []) + list(args)
    try:
        done = subprocess.run(argv, stdin=subprocess.DEVNULL, capture_output=True, check=False)
    except OSError as error:
        raise HuskStartError(f"cannot start {argv[0]}: {error}") from error
    if done.returncode != 0:
        raise HuskCommandError(args[0] if args else "husk", done.returncode, done.stderr.decode(errors="replace"))
    return done.stdout.decode(errors="replace")


def _name(name: str) -> str:
    if not isinstance(name, str):
        raise TypeError(f"tenant: want a name (str), not {name!r}")
    return name


def set_tenant(name: str, *, cpu: Optional[Duration] = None, wall: Optional[Duration] = None,
               runs: Optional[int] = None, output: Optional[Size] = None, concurrent: Optional[int] = None,
               period: Optional[Duration] = None, memory: Optional[Size] = None, pids: Optional[int] = None,
               cpus: Optional[Union[int, float, str]] = None, husk: Husk = "husk",
               root: Optional[PathLike] = None) -> None:
    """`husk tenant set NAME ...`: the tenant's ceilings, all of them (an absent one is no ceiling; set
    replaces what was there). Durations are seconds or husk's strings, sizes bytes or husk's strings;
    memory, pids and cpus need those cgroup v2 controllers, and husk refuses them where they are missing."""
    args = ["tenant", "set", _name(name)]
    for flag, convert, value in (
        ("--cpu", duration_arg, cpu),
        ("--wall", duration_arg, wall),
        ("--runs", count_arg, runs),
        ("--output", size_arg, output),
        ("--concurrent", count_arg, concurrent),
        ("--period", duration_arg, period),
        ("--memory", size_arg, memory),
        ("--pids", count_arg, pids),
        ("--cpus", cpus_arg, cpus),
    ):
        if value is not None:
            args += [flag, convert(flag.lstrip("-"), value)]
    _husk(husk, root, args)


def show_tenant(name: str, *, husk: Husk = "husk", root: Optional[PathLike] = None) -> Dict[str, Any]:
    """`husk tenant show NAME`: its ceilings, what its ledger adds up to ("used", "remaining", "live",
    "exhausted"), as husk prints it (docs/tenants.md)."""
    text = _husk(husk, root, ["tenant", "show", _name(name)])
    try:
        shown = json.loads(text)
    except ValueError as error:
        raise HuskError(f"husk tenant show printed no JSON object: {text!r}") from error
    if not isinstance(shown, Mapping):
        raise HuskError(f"husk tenant show printed no JSON object: {text!r}")
    return dict(shown)


def reset_tenant(name: str, *, husk: Husk = "husk", root: Optional[PathLike] = None) -> None:
    """`husk tenant reset NAME`: starts the tenant's ledger afresh (runs still alive keep their budgets)."""
    _husk(husk, root, ["tenant", "reset", _name(name)])


def compact_tenant(name: str, *, husk: Husk = "husk", root: Optional[PathLike] = None) -> None:
    """`husk tenant compact NAME`: rewrites the ledger with what it adds up to, dropping what is past."""
    _husk(husk, root, ["tenant", "compact", _name(name)])


def gc(*, husk: Husk = "husk", root: Optional[PathLike] = None) -> List[str]:
    """`husk gc`: deletes every stopped container whose monitor and owner are gone (a harness that died
    before it could delete); the ids deleted."""
    return [line for line in _husk(husk, root, ["gc"]).splitlines() if line]


@with_option_parameters
def sandbox_config(argv: Sequence, *, husk: Husk = "husk", **options) -> Dict[str, Any]:
    """`husk sandbox --print-config [flags] -- argv`: the config.json the sandbox would run, as a dict (it
    runs with `husk run --bundle`). The keyword options are those of run() and Sandbox."""
    chosen = Options(**options)
    args = ["sandbox", "--print-config"] + chosen.sandbox_args() + ["--"] + _argv(argv)
    text = _husk(husk, chosen.root, args)
    try:
        return dict(json.loads(text))
    except (ValueError, TypeError) as error:
        raise HuskError(f"husk sandbox --print-config printed no JSON object: {text[:200]!r}") from error
