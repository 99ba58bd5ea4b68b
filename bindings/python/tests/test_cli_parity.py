"""The module keeps up with the CLI: every flag `husk sandbox --help` lists has a keyword of run() and
Sandbox (or is one the module itself drives), and each keyword becomes its flag, which husk accepts."""

import re
import subprocess

import pytest

from husk_sandbox import Options, sandbox_config
from husk_sandbox.options import OPTION_NAMES

# Flags whose keyword is not the flag's name with "-" as "_".
KEYWORD_OF = {
    "bind": "binds",
    "bind-rw": "binds_rw",
    "cap": "caps",
    "no-userns": "userns",
}
# Flags the module gives itself: the stream, the verdict's pipe, and --print-config (sandbox_config()).
DRIVEN_BY_THE_MODULE = {"output-format", "verdict", "verdict-fd", "print-config", "help"}


def sandbox_flags(husk):
    text = subprocess.run([husk, "sandbox", "--help"], capture_output=True, text=True, check=True).stdout
    return sorted(set(re.findall(r"^\s+--([a-z][a-z0-9-]*)", text, re.MULTILINE)))


def test_every_husk_sandbox_flag_has_a_keyword(husk):
    flags = sandbox_flags(husk)
    assert "timeout" in flags and "landlock-connect" in flags  # the help was read
    missing = [flag for flag in flags
               if flag not in DRIVEN_BY_THE_MODULE and KEYWORD_OF.get(flag, flag.replace("-", "_")) not in OPTION_NAMES]
    assert missing == [], f"husk sandbox flags without a keyword in husk_sandbox.Options: {missing}"


def test_every_keyword_becomes_a_flag_husk_accepts(runs):
    # One of each, through --print-config: husk parses every flag (and refuses a flag it does not know).
    config = sandbox_config(["true"], **runs.options(
        timeout=2, kill_grace=1, stop_signal="SIGINT", cpu_limit=1, output_limit="1m", nofile=64, fsize="1m",
        nproc=50, tmp_size="8m", address_space="1g", net_ops=5, net_ops_kill=True, tenant="nobody",
        net_allow=["127.0.0.1/32:80"], env={"A": "1"}, cwd="/tmp", landlock_read=["/usr"],
        landlock_write=["/tmp"]))
    annotations = config["annotations"]
    assert annotations["run.husk.address-space"] == str(1 << 30)
    assert annotations["run.husk.tenant"] == "nobody"
    assert annotations["run.husk.stop-signal"] == "SIGINT"
    rlimits = {r["type"]: r["hard"] for r in config["process"]["rlimits"]}
    assert rlimits["RLIMIT_NPROC"] == 50 and rlimits["RLIMIT_NOFILE"] == 64
    tmp = [m for m in config["mounts"] if m["destination"] == "/tmp"][0]
    assert "size=8192k" in tmp["options"]


def test_the_new_keywords_become_their_flags():
    assert Options(nproc=8, tmp_size="1m", address_space=1 << 29, stop_signal=2, tenant="t",
                   die_with_parent=False).sandbox_args() == [
        "--nproc", "8", "--tmp-size", "1m", "--address-space", str(1 << 29), "--stop-signal", "2",
        "--net", "none", "--tenant", "t"]
    with pytest.raises(TypeError):
        Options(tenant=3).sandbox_args()
