"""Sandbox against the real husk: live chunks, cancel, and nothing left behind after the with block."""

import os
import subprocess
import sys
import time

import pytest

from conftest import BINDINGS, _processes_with
from husk_sandbox import Sandbox


def test_chunks_arrive_while_the_program_still_runs(runs):
    # The program prints, then sleeps far longer than the test takes: seeing its first chunk while husk
    # still runs shows the output is streamed, not collected at the end.
    with Sandbox(["/bin/sh", "-c", "echo first; sleep 30; echo never"], **runs.options()) as sandbox:
        chunks = sandbox.chunks()
        first = next(chunks)
        assert first.stream == "stdout" and first.data == b"first\n"
        assert sandbox.poll() is None
        assert 0 <= first.t < 30
        sandbox.cancel()
        rest = list(chunks)
        verdict = sandbox.wait()
    assert b"never" not in b"".join(c.data for c in rest)
    assert verdict.reason == "killed", verdict.detail


def test_chunk_times_grow_and_streams_are_labelled(runs):
    script = "echo a; sleep 0.2; echo b >&2; sleep 0.2; echo c"
    with Sandbox(["/bin/sh", "-c", script], **runs.options()) as sandbox:
        chunks = list(sandbox.chunks())
        verdict = sandbox.wait()
    assert [(c.stream, c.data) for c in chunks] == [("stdout", b"a\n"), ("stderr", b"b\n"), ("stdout", b"c\n")]
    times = [c.t for c in chunks]
    assert times == sorted(times) and times[2] - times[0] >= 0.3
    assert verdict.ok


def test_cancel_gives_reason_killed(runs):
    started = time.monotonic()
    with Sandbox(["/bin/sh", "-c", "echo ready; exec sleep 30"], **runs.options(kill_grace=1)) as sandbox:
        assert next(sandbox.chunks()).data == b"ready\n"
        sandbox.cancel()
        verdict = sandbox.wait()
    assert verdict.reason == "killed", verdict.detail
    assert verdict.status != 0
    assert sandbox.returncode == verdict.status
    assert time.monotonic() - started < 20


def test_wait_with_a_timeout_leaves_the_run_going(runs):
    with Sandbox(["/bin/sleep", "30"], **runs.options(kill_grace=0)) as sandbox:
        with pytest.raises(subprocess.TimeoutExpired):
            sandbox.wait(timeout=0.3)
        assert sandbox.poll() is None
    # Leaving the block cancelled it and waited for husk.
    assert sandbox.returncode is not None


def test_nothing_is_left_after_an_exception_in_the_with_block(runs):
    marker = f"61.{os.getpid()}"  # a sleep argument no other process has
    with pytest.raises(RuntimeError, match="boom"):
        with Sandbox(["/bin/sh", "-c", f"echo ready; exec sleep {marker}"], **runs.options(kill_grace=1)) as sandbox:
            assert next(sandbox.chunks()).data == b"ready\n"
            assert _processes_with(marker) != []
            raise RuntimeError("boom")
    assert sandbox.returncode is not None  # husk exited and was reaped
    assert _processes_with(marker) == []
    # The runs fixture checks that no container, cgroup or husk process of this test remains.


def test_the_verdict_comes_after_the_output_is_read(runs):
    with Sandbox(["/bin/sh", "-c", "echo one; echo two"], **runs.options()) as sandbox:
        verdict = sandbox.wait()
        assert [c.data for c in sandbox.chunks()] in ([b"one\n", b"two\n"], [b"one\ntwo\n"])
    assert verdict.ok and sandbox.verdict is verdict


def test_the_sandbox_dies_with_the_python_process_that_started_it(runs):
    # die_with_parent is on by default: SIGKILL to the Python process (no cleanup can run there) must still
    # end the container; husk watches its parent and kills and deletes the sandbox.
    marker = f"62.{os.getpid()}"
    options = runs.options(kill_grace=1)
    options["root"] = str(options["root"])
    script = (f"import sys, time; sys.path.insert(0, {str(BINDINGS)!r})\n"
              "from husk_sandbox import Sandbox\n"
              f"sandbox = Sandbox(['/bin/sh', '-c', 'echo ready; exec sleep {marker}'], **{options!r})\n"
              "next(sandbox.chunks())\n"
              "print('started', flush=True)\n"
              "time.sleep(60)\n")
    caller = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE)
    try:
        assert caller.stdout.readline() == b"started\n"
        assert _processes_with(marker) != []
    finally:
        caller.kill()
        caller.wait()
        caller.stdout.close()
    deadline = time.monotonic() + 15
    while (_processes_with(marker) or runs.leftovers()) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert _processes_with(marker) == []
    assert runs.leftovers() == []
