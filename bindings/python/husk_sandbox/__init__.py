"""husk_sandbox: run untrusted code under husk's hard ceilings from Python, and get a typed verdict.

    from husk_sandbox import run, Sandbox

    result = run(["python3", "-c", "print(1+1)"], timeout=5, memory="64m", output_limit="1m")
    result.stdout, result.verdict.reason     # b"2\\n", "exited"

    with Sandbox(["sh", "-c", "echo start; sleep 60"], timeout=10) as sandbox:
        for chunk in sandbox.chunks():       # live, as husk emits it
            print(chunk.stream, chunk.t, chunk.data)
            sandbox.cancel()                 # the verdict will say "killed"
        verdict = sandbox.wait()

It drives the `husk sandbox` command (husk(8)) with `--output-format json` and `--verdict-fd`, and uses
nothing beyond Python's standard library. set_tenant, show_tenant, reset_tenant and gc drive `husk tenant` and
`husk gc`. See bindings/python/README.md.
"""

from .admin import compact_tenant, gc, reset_tenant, sandbox_config, set_tenant, show_tenant
from .errors import HuskCommandError, HuskError, HuskStartError
from .options import Options
from .run import Result, run
from .sandbox import Sandbox
from .stream import Chunk
from .verdict import LIMIT_REASONS, REASONS, Limits, Usage, Verdict

__all__ = [
    "Chunk", "HuskCommandError", "HuskError", "HuskStartError", "LIMIT_REASONS", "Limits", "Options", "REASONS",
    "Result", "Sandbox", "Usage", "Verdict", "compact_tenant", "gc", "reset_tenant", "run", "sandbox_config",
    "set_tenant", "show_tenant",
]
