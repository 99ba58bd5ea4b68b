"""The parts that need no husk: the verdict and line formats of husk(8) and the flags options become."""

import json

import pytest

from husk_sandbox import HuskError, Options, Verdict
from husk_sandbox.stream import Chunk, VerdictLine, parse_line

# husk(8), VERDICT: the example, verbatim.
MAN_PAGE_VERDICT = """{"id": "c1",
 "exit": {"code": 137, "signal": 9, "reason": "timeout",
          "detail": "wall-time limit 2s reached; sent SIGTERM, killed after the 5s grace"},
 "status": 137,
 "started": "2026-11-25T15:01:18.1Z", "finished": "2026-11-25T15:01:25.2Z", "wallTimeMs": 7012,
 "factors": [{"kind": "pids-limit", "count": 3}],
 "usage": {"cpuUsec": 1200, "memoryPeakBytes": 1048576, "pidsPeak": 2, "stdoutBytes": 10, "stderrBytes": 0},
 "security": {"seccomp": "filter", "seccompFilters": 1, "noNewPrivileges": true,
              "capsEffective": "0x0000000000000000", "capsBounding": "0x00000000a80425fb"},
 "limits": {"timeoutMs": 2000, "killGraceMs": 5000, "stopSignal": "SIGTERM",
            "outputLimitBytes": 65536, "cpuLimitUsec": 1500000}}"""


def test_the_man_pages_verdict_reads_field_by_field():
    verdict = Verdict.from_json(json.loads(MAN_PAGE_VERDICT))
    assert (verdict.id, verdict.reason, verdict.status, verdict.exit_code, verdict.signal) == \
        ("c1", "timeout", 137, 137, 9)
    assert verdict.detail.startswith("wall-time limit 2s reached")
    assert verdict.limited and not verdict.ok and not verdict.exited_after_limit
    assert (verdict.started, verdict.finished, verdict.wall_time_ms) == \
        ("2026-11-25T15:01:18.1Z", "2026-11-25T15:01:25.2Z", 7012)
    assert verdict.factors == {"pids-limit": 3}
    assert verdict.usage.cpu_usec == 1200 and verdict.usage.memory_peak_bytes == 1048576
    assert verdict.usage.pids_peak == 2 and verdict.usage.stdout_bytes == 10 and verdict.usage.stderr_bytes == 0
    assert verdict.security["seccomp"] == "filter"
    limits = verdict.limits
    assert (limits.timeout_ms, limits.kill_grace_ms, limits.stop_signal, limits.output_limit_bytes,
            limits.cpu_limit_usec) == (2000, 5000, "SIGTERM", 65536, 1500000)
    assert (limits.net_ops, limits.net_ops_kill, limits.net_allow, limits.tenant, limits.die_with_parent) == \
        (None, False, None, None, False)
    assert verdict.raw["exit"]["reason"] == "timeout"


def test_the_policies_in_the_limits_read_too():
    limits = Verdict.from_json(json.loads(MAN_PAGE_VERDICT.replace(
        '"cpuLimitUsec": 1500000}',
        '"cpuLimitUsec": 1500000, "netOps": 5, "netOpsKill": true, "netAllow": ["127.0.0.1/32:53"], '
        '"tenant": "team-a", "dieWithParent": true, "addressSpaceBytes": 536870912}'))).limits
    assert (limits.net_ops, limits.net_ops_kill, limits.net_allow, limits.tenant, limits.die_with_parent) == \
        (5, True, ("127.0.0.1/32:53",), "team-a", True)
    assert limits.address_space_bytes == 512 << 20


def test_a_refused_verdict_has_no_exit_code():
    # What husk run --verdict-fd wrote for `--timeout abc` (main, 2026-11-25).
    raw = {"id": "x1", "exit": {"code": -1, "signal": 0, "reason": "refused",
                                "detail": "--timeout: invalid duration \"abc\""},
           "status": 2, "finished": "2026-11-25T16:37:41.336499390Z"}
    verdict = Verdict.from_json(raw)
    assert (verdict.reason, verdict.status, verdict.exit_code, verdict.signal) == ("refused", 2, None, None)
    assert verdict.limits is None and verdict.usage.cpu_usec is None and verdict.factors == {}


def test_exited_after_limit_is_read():
    raw = {"id": "c", "exit": {"code": 0, "signal": 0, "reason": "timeout", "detail": "...",
                               "exitedAfterLimit": True}, "status": 124}
    verdict = Verdict.from_json(raw)
    assert verdict.exited_after_limit and verdict.exit_code == 0 and verdict.status == 124


@pytest.mark.parametrize("raw", [{}, {"exit": {}, "status": 0}, {"exit": {"reason": "exited"}},
                                 {"exit": {"reason": "exited"}, "status": "0"}])
def test_a_verdict_without_reason_or_status_is_an_error(raw):
    with pytest.raises(HuskError):
        Verdict.from_json(raw)


def test_lines_become_chunks_and_the_verdict():
    assert parse_line(b'{"stream":"stdout","t":0.0123,"data":"hello\\n"}') == Chunk("stdout", 0.0123, b"hello\n")
    assert parse_line(b'{"stream":"stderr","t":1,"data":"/wD+","encoding":"base64"}') == \
        Chunk("stderr", 1.0, b"\xff\x00\xfe")
    assert parse_line('{"stream":"stdout","t":0,"data":"h\u00e9"}'.encode()) == Chunk("stdout", 0.0, "h\u00e9".encode())
    line = parse_line(b'{"stream":"verdict","t":1.234,"verdict":{"id":"c1"}}')
    assert line == VerdictLine(1.234, {"id": "c1"})
    assert parse_line(b'{"stream":"something-newer","t":1}') is None


@pytest.mark.parametrize("line", [b"hello", b"[]", b'{"t":1}', b'{"stream":"stdout","t":1}',
                                  b'{"stream":"stdout","t":"1","data":""}',
                                  b'{"stream":"stdout","t":1,"data":"!!","encoding":"base64"}',
                                  b'{"stream":"stdout","t":1,"data":"x","encoding":"rot13"}',
                                  b'{"stream":"verdict","t":1}'])
def test_a_line_that_breaks_the_format_is_an_error(line):
    with pytest.raises(HuskError):
        parse_line(line)


def test_options_become_husk_sandbox_flags():
    options = Options(timeout=2, kill_grace=0.25, cpu_limit="1.5s", cpus=0.5, memory=64 << 20, pids=32,
                      output_limit="64k", nofile=64, fsize=1 << 20, net="host", rootfs="/r",
                      binds=["/a", ("/b", "/c")], binds_rw=["/d:/e"], env={"A": "1"}, clear_env=True,
                      cwd="/tmp", seccomp="unconfined", caps=["CAP_CHOWN"], userns=False,
                      landlock_read=["/usr"], landlock_write=["/tmp"], landlock_connect=[443],
                      net_allow=["10.0.0.1/32:53", "[::1]:443"], net_ops=100, net_ops_kill=True, id="s1",
                      die_with_parent=False, extra_args=["--print-config"], nproc=16, tmp_size="4m",
                      address_space="1g", stop_signal="SIGINT", tenant="t")
    assert options.sandbox_args() == [
        "--timeout", "2s", "--kill-grace", "0.25s", "--cpu-limit", "1.5s", "--cpus", "0.5",
        "--memory", str(64 << 20), "--pids", "32", "--output-limit", "64k", "--nofile", "64",
        "--fsize", str(1 << 20), "--nproc", "16", "--tmp-size", "4m", "--address-space", "1g",
        "--stop-signal", "SIGINT", "--net", "host", "--rootfs", "/r", "--bind", "/a", "--bind", "/b:/c",
        "--bind-rw", "/d:/e", "--env", "A=1", "--clear-env", "--cwd", "/tmp", "--seccomp", "unconfined",
        "--cap", "CAP_CHOWN", "--no-userns", "--landlock-read", "/usr", "--landlock-write", "/tmp",
        "--landlock-connect", "443", "--net-allow", "10.0.0.1/32:53", "--net-allow", "[::1]:443",
        "--net-ops", "100", "--net-ops-kill", "--tenant", "t", "--id", "s1", "--print-config"]


def test_default_options_keep_husks_defaults_and_tie_the_run_to_this_process():
    assert Options().sandbox_args() == ["--net", "none", "--die-with-parent"]
    assert Options().global_args() == [] and Options(root="/tmp/s").global_args() == ["--root", "/tmp/s"]


def test_durations_keep_whole_microseconds_without_an_exponent():
    assert Options(timeout=0.000001).sandbox_args()[:2] == ["--timeout", "0.000001s"]
    assert Options(timeout=1e-7).sandbox_args()[:2] == ["--timeout", "0s"]  # husk refuses it: > 0
    assert Options(timeout=-1).sandbox_args()[:2] == ["--timeout", "-1s"]  # so does this


@pytest.mark.parametrize("options", [{"timeout": True}, {"memory": 1.5}, {"binds": "/a"}, {"env": ["A"]},
                                     {"pids": [1]}, {"binds": [("/a",)]}])
def test_a_value_of_the_wrong_type_raises(options):
    with pytest.raises(TypeError):
        Options(**options).sandbox_args()
