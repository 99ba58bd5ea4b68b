"""The tenant API and gc against the real husk: set, show, reset; a run charged to a tenant and refused with
reason tenant-quota once a ceiling is used up; husk's refusal of a bad command as HuskCommandError."""

import json
import subprocess
import time

import pytest

from husk_sandbox import (HuskCommandError, REASONS, gc, reset_tenant, run, sandbox_config, set_tenant,
                          show_tenant)


def test_a_tenant_is_set_charged_shown_and_reset(runs):
    where = {"husk": runs.husk, "root": runs.root}
    set_tenant("team", runs=1, output="1k", wall=60, **where)
    shown = show_tenant("team", **where)
    assert shown["used"]["runs"] == 0 and shown["remaining"]["runs"] == 1

    first = run(["sh", "-c", "echo hi"], **runs.options(tenant="team"))
    assert first.verdict.reason == "exited" and first.verdict.limits.tenant == "team"
    assert show_tenant("team", **where)["used"]["runs"] == 1

    second = run(["true"], **runs.options(tenant="team"))
    assert second.verdict.reason == "tenant-quota" and second.verdict.reason in REASONS
    assert second.verdict.status == 2
    assert "runs: 1 of 1 started" in second.verdict.detail

    reset_tenant("team", **where)
    assert show_tenant("team", **where)["used"]["runs"] == 0
    assert run(["true"], **runs.options(tenant="team")).verdict.reason == "exited"


def test_a_command_husk_refuses_raises_with_its_status_and_message(runs):
    where = {"husk": runs.husk, "root": runs.root}
    with pytest.raises(HuskCommandError) as raised:
        set_tenant("team", period="soon", **where)
    assert raised.value.status != 0 and "--period" in raised.value.message
    with pytest.raises(HuskCommandError):
        show_tenant("never-set", **where)


def test_gc_deletes_what_a_dead_owner_left_and_names_it(runs, tmp_path):
    where = {"husk": runs.husk, "root": runs.root}
    options = runs.options()
    run_id = options.pop("id")
    bundle = tmp_path / "bundle"
    bundle.mkdir()
    (bundle / "config.json").write_text(json.dumps(sandbox_config(["true"], **options)))
    # Started detached by a shell that exits at once: the container stops, its monitor and owner are gone.
    subprocess.run(["sh", "-c", '"$0" --root "$1" run --detach --bundle "$2" "$3"', runs.husk, str(runs.root),
                    str(bundle), run_id], check=True)
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        state = subprocess.run([runs.husk, "--root", str(runs.root), "state", run_id], capture_output=True, text=True)
        if json.loads(state.stdout or "{}").get("status") == "stopped":
            break
        time.sleep(0.05)
    assert gc(**where) == [run_id]
    assert gc(**where) == []
