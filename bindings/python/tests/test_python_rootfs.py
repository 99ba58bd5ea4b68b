"""bundles/build-rootfs.sh --python: Debian's minimal Python in a rootfs, run by husk."""

import json
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

from conftest import REPO
from husk_sandbox import run

SCRIPT = os.environ.get("HUSK_ROOTFS_SCRIPT") or str(REPO / "bundles" / "build-rootfs.sh")


@pytest.fixture(scope="module")
def python_bundle():
    """A bundle whose rootfs is built with --python, and whose config is the busybox demo's."""
    # Searchable by others (not below pytest's 0700 tmp_path): husk sandbox's user namespace ids must reach it.
    bundle = Path(tempfile.mkdtemp(prefix="husk-pytest-python-"))
    bundle.chmod(0o755)
    try:
        subprocess.run([SCRIPT, "--python", str(bundle / "rootfs")], check=True, timeout=300)
        yield bundle
    finally:
        shutil.rmtree(bundle)


def husk_run(husk, bundle, root, args):
    if os.geteuid() == 0:
        with open(REPO / "bundles" / "busybox" / "config.json") as busybox:
            config = json.load(busybox)
    else:
        # Without root (docs/rootless.md): the demo's config needs a user namespace and no cgroup; husk writes
        # that config itself.
        (bundle / "config.json").unlink(missing_ok=True)
        subprocess.run([husk, "spec", "--rootless", "--bundle", str(bundle)], check=True)
        config = json.loads((bundle / "config.json").read_text())
        config["process"]["terminal"] = False
    config["process"]["args"] = args
    (bundle / "config.json").write_text(json.dumps(config))
    run_id = f"pytest-python-{os.getpid()}"
    try:
        return subprocess.run([husk, "--root", str(root), "run", "--bundle", str(bundle), run_id],
                              capture_output=True, timeout=120)
    finally:
        listed = subprocess.run([husk, "--root", str(root), "list", "-q"], capture_output=True, text=True)
        assert listed.stdout.split() == []


def test_python_rootfs_runs_python(husk, python_bundle, tmp_path):
    result = husk_run(husk, python_bundle, tmp_path, ["python3", "-c", "print(1+1)"])
    assert (result.returncode, result.stdout, result.stderr) == (0, b"2\n", b"")


def test_python_rootfs_holds_the_minimal_standard_library_only(husk, python_bundle, tmp_path):
    program = ("import os, re, sys, subprocess\n"
               "try:\n    import json\nexcept ImportError:\n    print('no json')\n"
               "print(sys.prefix, sys.version_info[:2] >= (3, 11))")
    result = husk_run(husk, python_bundle, tmp_path, ["python3", "-c", program])
    assert result.returncode == 0, result.stderr
    assert result.stdout == b"no json\n/usr True\n"


def test_building_again_leaves_the_python_files_alone(python_bundle):
    # The .pyc files are valid only while each source keeps its size and mtime: a rebuild must not touch
    # them. (etc/passwd, group and hosts of the busybox part are written anew each time.)
    def python_files():
        return {p: p.stat().st_mtime_ns for p in rootfs.rglob("*")
                if p.is_file() and not p.is_symlink() and p.parent != rootfs / "etc"}
    rootfs = python_bundle / "rootfs"
    before = python_files()
    assert any(p.suffix == ".pyc" for p in before)
    subprocess.run([SCRIPT, "--python", str(rootfs)], check=True, timeout=300)
    assert python_files() == before


def test_python_rootfs_under_husk_sandbox(runs, python_bundle):
    result = run(["python3", "-c", "print(1+1)"], **runs.options(rootfs=python_bundle / "rootfs"))
    assert result.stdout == b"2\n", result.husk_stderr
    assert result.verdict.ok
