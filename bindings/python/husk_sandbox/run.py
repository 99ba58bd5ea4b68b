"""run(): a whole sandboxed run in one call, with its output collected."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from .options import with_option_parameters
from .sandbox import Sandbox, Stdin
from .verdict import Verdict


@dataclass(frozen=True)
class Result:
    """What run() returns: the program's stdout and stderr, whole, and the verdict."""

    stdout: bytes
    stderr: bytes
    verdict: Verdict
    husk_stderr: bytes = b""  # husk's own messages: why it refused, warnings

    @property
    def ok(self) -> bool:
        """True when the program exited by itself with code 0 and no limit fired."""
        return self.verdict.ok


@with_option_parameters
def run(argv: Sequence, *, stdin: Stdin = None, husk="husk", **options) -> Result:
    """Runs argv under `husk sandbox` until it ends and returns its output and verdict.

        result = run(["python3", "-c", "print(1+1)"], timeout=5, output_limit="1m")
        result.stdout               # b"2\\n"
        result.verdict.reason       # "exited"; "timeout", "output-limit", "refused", ...

    The keyword options are those of Options, one per `husk sandbox` flag: timeout, kill_grace, cpu_limit,
    cpus, memory, pids, output_limit, nofile, fsize, net, rootfs, binds, binds_rw, env, clear_env, cwd,
    seccomp, ... Durations are seconds or husk's strings ("500ms"), sizes bytes or husk's strings ("64m").
    A config husk refuses is a Verdict with reason "refused", not an exception; HuskStartError is raised
    when husk cannot be started at all, HuskError when it ends without a verdict. Output is kept in memory:
    give an output_limit when the program is not trusted to be brief.
    """
    stdout, stderr = [], []
    with Sandbox(argv, stdin=stdin, husk=husk, **options) as sandbox:
        for chunk in sandbox.chunks():
            (stdout if chunk.stream == "stdout" else stderr).append(chunk.data)
        verdict = sandbox.wait()
    return Result(b"".join(stdout), b"".join(stderr), verdict, sandbox.husk_stderr)
