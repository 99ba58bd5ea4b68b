"""run() against the real husk: output, exit codes, limits, refusals (host: no cgroup v2 controller needed)."""

import pytest

from husk_sandbox import HuskError, HuskStartError, run

PYTHON = "/usr/bin/python3"  # the host's, seen through the sandbox's read-only view of /usr


def test_hello_world(runs):
    result = run(["/bin/sh", "-c", "echo hello world"], **runs.options())
    assert result.stdout == b"hello world\n"
    assert result.stderr == b""
    assert result.verdict.reason == "exited"
    assert result.verdict.exit_code == 0 and result.verdict.status == 0 and result.verdict.signal is None
    assert result.ok


@pytest.mark.parametrize("code", [1, 3, 42, 255])
def test_exit_code_is_the_programs(runs, code):
    result = run(["/bin/sh", "-c", f"exit {code}"], **runs.options())
    assert (result.verdict.reason, result.verdict.exit_code, result.verdict.status) == ("exited", code, code)
    assert not result.ok


def test_a_program_killed_by_a_signal_is_signaled(runs):
    result = run(["/bin/sh", "-c", "kill -KILL $$"], **runs.options())
    verdict = result.verdict
    assert (verdict.reason, verdict.signal, verdict.exit_code, verdict.status) == ("signaled", 9, 137, 137)


def test_stdout_and_stderr_stay_apart(runs):
    result = run(["/bin/sh", "-c", "echo out; echo err >&2; echo out2"], **runs.options())
    assert result.stdout == b"out\nout2\n"
    assert result.stderr == b"err\n"
    assert result.husk_stderr == b""


def test_binary_output_round_trips(runs):
    # Every byte value, 1 MiB of it: most chunks are not UTF-8 and travel as base64.
    expected = bytes(range(256)) * 4096
    program = "import sys; sys.stdout.buffer.write(bytes(range(256)) * 4096)"
    result = run([PYTHON, "-c", program], **runs.options())
    assert result.verdict.reason == "exited", result.verdict.detail
    assert result.stdout == expected


def test_utf8_output_round_trips(runs):
    text = "h\u00e9llo \u2713 \U0001f600\n"
    result = run([PYTHON, "-c", f"import sys; sys.stdout.buffer.write({text.encode()!r})"], **runs.options())
    assert result.stdout.decode("utf-8") == text


def test_stdin_bytes_reach_the_program(runs):
    data = b"line\n" * 50000  # more than a pipe holds, so feeding and reading overlap
    result = run(["/bin/cat"], stdin=data, **runs.options())
    assert result.stdout == data


def test_stdin_from_a_file(runs, tmp_path):
    path = tmp_path / "input"
    path.write_bytes(b"from a file\n")
    with open(path, "rb") as stdin:
        result = run(["/bin/cat"], stdin=stdin, **runs.options())
    assert result.stdout == b"from a file\n"


def test_stdin_defaults_to_nothing(runs):
    result = run(["/bin/cat"], **runs.options())
    assert result.stdout == b"" and result.verdict.reason == "exited"


def test_timeout_gives_the_timeout_verdict(runs):
    result = run(["/bin/sleep", "30"], **runs.options(timeout=0.5, kill_grace=0))
    verdict = result.verdict
    assert verdict.reason == "timeout", verdict.detail
    assert verdict.limited and not verdict.ok
    assert verdict.status == 137 and verdict.signal == 9
    assert verdict.limits.timeout_ms == 500 and verdict.limits.kill_grace_ms == 0
    assert verdict.wall_time_ms is not None and verdict.wall_time_ms < 10000


def test_output_cap_delivers_exactly_the_cap(runs):
    result = run(["/usr/bin/yes"], **runs.options(output_limit=1000))
    verdict = result.verdict
    assert verdict.reason == "output-limit", verdict.detail
    assert verdict.limits.output_limit_bytes == 1000
    assert result.stdout == b"y\n" * 500
    assert verdict.usage.stdout_bytes == 1000


def test_output_cap_as_husk_string(runs):
    result = run(["/usr/bin/yes"], **runs.options(output_limit="1k"))
    assert result.verdict.reason == "output-limit"
    assert len(result.stdout) == 1024


def test_refused_config_is_a_verdict_not_an_exception(runs):
    result = run(["/bin/true"], **runs.options(timeout="soon"))
    verdict = result.verdict
    assert verdict.reason == "refused"
    assert verdict.status == 2
    assert verdict.exit_code is None
    assert "--timeout" in verdict.detail
    assert result.stdout == b"" and result.stderr == b""
    assert b"--timeout" in result.husk_stderr


def test_a_flag_husk_does_not_know_is_refused_too(runs):
    result = run(["/bin/true"], **runs.options(extra_args=["--no-such-flag"]))
    assert result.verdict.reason == "refused" and result.verdict.status == 2
    assert "--no-such-flag" in result.verdict.detail


def test_a_program_that_cannot_be_executed_is_setup_failed(runs):
    result = run(["/nonexistent/program"], **runs.options())
    verdict = result.verdict
    assert verdict.reason == "setup-failed" and verdict.exit_code is None and verdict.status != 0
    assert "/nonexistent/program" in verdict.detail


def test_a_husk_that_cannot_start_raises(tmp_path):
    with pytest.raises(HuskStartError, match="No such file"):
        run(["/bin/true"], husk=str(tmp_path / "no-husk-here"))


def test_a_husk_that_gives_no_verdict_raises():
    with pytest.raises(HuskError, match="without a verdict"):
        run(["/bin/true"], husk="/bin/true")


def test_options_of_a_wrong_type_raise_before_husk_runs():
    with pytest.raises(TypeError, match="timeout"):
        run(["/bin/true"], husk="/nonexistent", timeout=[1])
    with pytest.raises(TypeError, match="unexpected keyword"):
        run(["/bin/true"], husk="/nonexistent", memroy="64m")
    with pytest.raises(TypeError, match="argv"):
        run("echo hi", husk="/nonexistent")
