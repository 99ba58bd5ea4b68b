"""The lines of `--output-format json` (husk(8)): one per chunk of output as husk's pump read it, then the
verdict.

    {"stream":"stdout","t":0.0123,"data":"hello\\n"}
    {"stream":"stderr","t":0.0150,"data":"//79","encoding":"base64"}   (base64 only for non-UTF-8 data)
    {"stream":"verdict","t":1.234,"verdict":{...}}
"""

from __future__ import annotations

import base64
import binascii
import json
from dataclasses import dataclass
from typing import Any, Mapping, Optional, Union

from .errors import HuskError


@dataclass(frozen=True)
class Chunk:
    """One piece of the program's output: stream is "stdout" or "stderr", t the seconds since the
    container started (husk's clock), data the bytes exactly as the program wrote them."""

    stream: str
    t: float
    data: bytes


@dataclass(frozen=True)
class VerdictLine:
    """The last line: the verdict object as husk wrote it."""

    t: float
    verdict: Mapping[str, Any]


def parse_line(line: bytes) -> Optional[Union[Chunk, VerdictLine]]:
    """One line of husk's stdout; None for a kind of line this module does not know (a newer husk may
    add some). A line that is not husk's JSON breaks the protocol and raises HuskError."""
    try:
        obj = json.loads(line)
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise HuskError(f"husk printed a line that is not JSON ({error}): {line[:200]!r}") from None
    if not isinstance(obj, dict) or not isinstance(obj.get("stream"), str):
        raise HuskError(f"husk printed a JSON line without a stream: {line[:200]!r}")
    stream = obj["stream"]
    t = obj.get("t", 0.0)
    if isinstance(t, bool) or not isinstance(t, (int, float)):
        raise HuskError(f"husk printed a line whose t is not a number: {line[:200]!r}")
    if stream == "verdict":
        if not isinstance(obj.get("verdict"), dict):
            raise HuskError(f"husk printed a verdict line without a verdict object: {line[:200]!r}")
        return VerdictLine(float(t), obj["verdict"])
    if stream not in ("stdout", "stderr"):
        return None
    data = obj.get("data")
    if not isinstance(data, str):
        raise HuskError(f"husk printed a {stream} line without data: {line[:200]!r}")
    encoding = obj.get("encoding")
    if encoding is None:
        payload = data.encode("utf-8")
    elif encoding == "base64":
        try:
            payload = base64.b64decode(data, validate=True)
        except binascii.Error as error:
            raise HuskError(f"husk printed bad base64 ({error}): {line[:200]!r}") from None
    else:
        raise HuskError(f"husk printed an unknown encoding {encoding!r}: {line[:200]!r}")
    return Chunk(stream, float(t), payload)
