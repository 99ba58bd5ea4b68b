"""The exceptions of husk_sandbox.

A run that husk refused or that ended badly is not an exception: it is a Verdict (reason "refused",
"setup-failed", "timeout", ...). These are raised only when there is no verdict to give.
"""


class HuskError(Exception):
    """husk ran but gave no verdict (it crashed, it is not a husk, or its output broke the protocol)."""


class HuskStartError(HuskError):
    """husk itself could not be started (not found, not executable)."""
