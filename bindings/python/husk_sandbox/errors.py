"""The exceptions of husk_sandbox.

A run that husk refused or that ended badly is not an exception: it is a Verdict (reason "refused",
"setup-failed", "timeout", ...). These are raised only when there is no verdict to give.
"""


class HuskError(Exception):
    """husk ran but gave no verdict (it crashed, it is not a husk, or its output broke the protocol)."""


class HuskStartError(HuskError):
    """husk itself could not be started (not found, not executable)."""


class HuskCommandError(HuskError):
    """A husk command other than a run (tenant, gc, --print-config) failed: husk's status and message."""

    def __init__(self, command: str, status: int, message: str):
        super().__init__(f"husk {command} exited {status}: {message.strip()}")
        self.command = command
        self.status = status
        self.message = message
