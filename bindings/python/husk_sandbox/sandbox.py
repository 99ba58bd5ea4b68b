"""Sandbox: one `husk sandbox --output-format json` run, driven from Python.

husk's stdout carries the program's output as JSON lines (stream.py) and its stderr only husk's own
messages; the verdict comes on a pipe of its own (--verdict-fd), which husk writes exactly once even when it
refuses the config. One selector reads the three pipes (and feeds stdin), in the caller's thread: no
threads are started.
"""

from __future__ import annotations

import json
import os
import selectors
import signal
import subprocess
import time
from collections import deque
from typing import IO, Iterator, Optional, Sequence, Union

from .errors import HuskError, HuskStartError
from .options import Options, with_option_parameters
from .stream import Chunk, VerdictLine, parse_line
from .verdict import Verdict

Stdin = Union[None, bytes, bytearray, memoryview, int, IO]

_READ_SIZE = 65536


def _argv(argv: Sequence) -> list:
    if isinstance(argv, (str, bytes)):
        raise TypeError(f"argv: want a list such as ['sh', '-c', 'echo hi'], not the single string {argv!r}")
    args = [os.fsdecode(a) if isinstance(a, bytes) else os.fspath(a) for a in argv]
    if not args:
        raise ValueError("argv: empty; want the program and its arguments")
    return args


class Sandbox:
    """Runs argv under `husk sandbox` and gives its output as it comes, then its verdict.

        with Sandbox(["python3", "-c", "print(1)"], timeout=5, memory="64m") as sandbox:
            for chunk in sandbox.chunks():
                print(chunk.stream, chunk.t, chunk.data)
            verdict = sandbox.wait()

    husk starts at once (a failure to start it raises HuskStartError). The keyword options are those of
    Options (one per `husk sandbox` flag). stdin is None (the program reads /dev/null), bytes to feed it,
    or a file descriptor or file object to hand over.

    Leaving the with block cancels the run if it is still going (SIGTERM to husk, which stops the whole
    container: stop signal, kill grace, kill) and waits for husk to exit, so no process outlives the block,
    whether it ends normally or by an exception. Call wait() inside the block to let the program finish.
    One thread drives a Sandbox; cancel() may come from another.
    """

    @with_option_parameters
    def __init__(self, argv: Sequence, *, stdin: Stdin = None, husk: Union[str, "os.PathLike[str]"] = "husk",
                 **options):
        self.options = Options(**options)
        program = _argv(argv)
        global_args = self.options.global_args()
        sandbox_args = self.options.sandbox_args()
        self._queue: deque = deque()
        self._stdout_buffer = bytearray()
        self._husk_stderr = bytearray()
        self._verdict_text = bytearray()
        self._stream_verdict = None
        self._verdict: Optional[Verdict] = None
        self._stdout_done = False
        self._stdin_data: Optional[memoryview] = None
        self._closed = False
        self._lenient = False

        stdin_arg = subprocess.DEVNULL
        if isinstance(stdin, (bytes, bytearray, memoryview)):
            stdin_arg = subprocess.PIPE
            self._stdin_data = memoryview(bytes(stdin))
        elif stdin is not None:
            if not isinstance(stdin, int) and not hasattr(stdin, "fileno"):
                raise TypeError(f"stdin: want bytes, a file descriptor or a file object, not {stdin!r}")
            stdin_arg = stdin

        verdict_read, verdict_write = os.pipe()
        self.args = [os.fspath(husk), *global_args, "sandbox", "--output-format", "json",
                     "--verdict-fd", str(verdict_write), *sandbox_args, "--", *program]
        try:
            self._process = subprocess.Popen(self.args, stdin=stdin_arg, stdout=subprocess.PIPE,
                                             stderr=subprocess.PIPE, pass_fds=(verdict_write,))
        except OSError as error:
            os.close(verdict_read)
            raise HuskStartError(f"cannot start husk ({self.args[0]!r}): {error.strerror or error}") from error
        finally:
            os.close(verdict_write)

        self._selector = selectors.DefaultSelector()
        self._selector.register(self._process.stdout, selectors.EVENT_READ, "stdout")
        self._selector.register(self._process.stderr, selectors.EVENT_READ, "stderr")
        self._verdict_file = os.fdopen(verdict_read, "rb", buffering=0)
        self._selector.register(self._verdict_file, selectors.EVENT_READ, "verdict")
        if self._process.stdin is not None:
            if len(self._stdin_data):
                os.set_blocking(self._process.stdin.fileno(), False)
                self._selector.register(self._process.stdin, selectors.EVENT_WRITE, "stdin")
            else:
                self._process.stdin.close()

    # --- what a caller sees

    @property
    def pid(self) -> int:
        """husk's pid (not the program's: that one lives in the sandbox's own pid namespace)."""
        return self._process.pid

    @property
    def returncode(self) -> Optional[int]:
        """husk's exit status once it has been waited for (the same as verdict.status), else None."""
        return self._process.returncode

    @property
    def husk_stderr(self) -> bytes:
        """husk's own messages (errors, warnings), never mixed with the program's output."""
        return bytes(self._husk_stderr)

    @property
    def verdict(self) -> Optional[Verdict]:
        """The verdict once wait() returned it, else None."""
        return self._verdict

    def poll(self) -> Optional[int]:
        """husk's exit status if it has exited, else None; never blocks."""
        return self._process.poll()

    def chunks(self) -> Iterator[Chunk]:
        """The program's output, one Chunk per piece husk read, as soon as husk emits it. Ends when husk's
        output ends (the run is over). Chunks that wait() or the end of the with block read meanwhile are
        kept and come out here too."""
        while True:
            while self._queue:
                yield self._queue.popleft()
            if self._stdout_done or self._closed:
                return
            self._pump(None)

    def cancel(self) -> None:
        """Asks husk to stop the run: SIGTERM to husk, which sends the container its stop signal, kills it
        after the kill grace, and still writes the verdict (reason "killed"). Returns at once; wait() for
        the verdict."""
        self._process.send_signal(signal.SIGTERM)  # a no-op once husk has been reaped

    def wait(self, timeout: Optional[float] = None) -> Verdict:
        """Waits for the run to end and returns its verdict. Output not yet read is kept for chunks().
        Raises subprocess.TimeoutExpired when timeout (seconds) passes first (the run goes on), and
        HuskError when husk ended without a verdict."""
        deadline = None if timeout is None else time.monotonic() + timeout
        if not self._drain(deadline):
            raise subprocess.TimeoutExpired(self.args, timeout)
        return self._read_verdict()

    def close(self) -> None:
        """Cancels the run if it still goes on, waits for husk to exit and releases the pipes."""
        if self._closed:
            return
        # A line that breaks the format must not stop the wait: husk would be left running.
        self._lenient = True
        try:
            if self._process.poll() is None:
                self.cancel()
            self._drain(None)
        finally:
            # Interrupted meanwhile (a second Ctrl-C): husk has its SIGTERM and stops the container within
            # the kill grace on its own. SIGKILL to husk instead could leave the container without anyone to
            # stop it, so husk is left to finish.
            self._release()

    def __enter__(self) -> "Sandbox":
        return self

    def __exit__(self, *exc_info) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"<Sandbox pid={self.pid} returncode={self.returncode} args={self.args!r}>"

    # --- the pipes

    def _drain(self, deadline: Optional[float]) -> bool:
        """Reads every pipe to its end and reaps husk; False if the deadline came first."""
        while self._selector.get_map():
            remaining = None if deadline is None else deadline - time.monotonic()
            if remaining is not None and remaining <= 0:
                return False
            self._pump(remaining)
        try:
            remaining = None if deadline is None else max(0.0, deadline - time.monotonic())
            self._process.wait(remaining)
        except subprocess.TimeoutExpired:
            return False
        return True

    def _pump(self, timeout: Optional[float]) -> None:
        """Waits up to timeout for any pipe and handles what is ready."""
        if self._closed or not self._selector.get_map():
            return
        for key, _ in self._selector.select(timeout):
            if key.data == "stdin":
                self._feed_stdin(key.fileobj)
                continue
            data = os.read(key.fd, _READ_SIZE)
            if not data:
                self._unregister(key.fileobj)
                if key.data == "stdout":
                    self._stdout_done = True
                    if self._stdout_buffer.strip():
                        self._stdout_buffer += b"\n"  # the last line lacked its newline: take it anyway
                        self._parse_lines()
            elif key.data == "stdout":
                self._stdout_buffer += data
                self._parse_lines()
            elif key.data == "stderr":
                self._husk_stderr += data
            else:
                self._verdict_text += data

    def _parse_lines(self) -> None:
        buffer = self._stdout_buffer
        start = 0
        try:
            while (end := buffer.find(b"\n", start)) >= 0:
                line = bytes(buffer[start:end])
                start = end + 1
                if not line.strip():
                    continue
                try:
                    item = parse_line(line)
                except HuskError:
                    if self._lenient:
                        continue
                    raise
                if isinstance(item, Chunk):
                    self._queue.append(item)
                elif isinstance(item, VerdictLine):
                    self._stream_verdict = item.verdict
        finally:
            del buffer[:start]

    def _feed_stdin(self, stdin: IO) -> None:
        data = self._stdin_data
        try:
            written = os.write(stdin.fileno(), data[:_READ_SIZE])
        except BlockingIOError:
            return
        except BrokenPipeError:
            written = len(data)  # the program stopped reading: what is left is dropped, as with a shell pipe
        self._stdin_data = data[written:]
        if not len(self._stdin_data):
            self._unregister(stdin)

    def _unregister(self, fileobj) -> None:
        self._selector.unregister(fileobj)
        fileobj.close()

    def _read_verdict(self) -> Verdict:
        if self._verdict is not None:
            return self._verdict
        text = bytes(self._verdict_text).strip()
        if text:
            try:
                raw = json.loads(text.splitlines()[0])
            except (UnicodeDecodeError, json.JSONDecodeError) as error:
                raise HuskError(f"husk wrote a verdict that is not JSON ({error}): {text[:200]!r}") from None
        elif self._stream_verdict is not None:
            raw = self._stream_verdict
        else:
            message = self.husk_stderr.decode("utf-8", "replace").strip()
            raise HuskError(f"husk exited with status {self.returncode} without a verdict"
                            + (f": {message}" if message else ""))
        self._verdict = Verdict.from_json(raw)
        return self._verdict

    def _release(self) -> None:
        for key in list(self._selector.get_map().values()):
            self._unregister(key.fileobj)
        self._selector.close()
        self._closed = True
