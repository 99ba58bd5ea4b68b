"""Fixtures of the husk_sandbox tests: the real husk binary, a state root of each test's own, and the
check that nothing a test started is left behind (no container in the root, no cgroup, no process)."""

import itertools
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

BINDINGS = Path(__file__).resolve().parents[1]
REPO = BINDINGS.parents[1]
sys.path.insert(0, str(BINDINGS))

_counter = itertools.count()


@pytest.fixture(scope="session")
def husk() -> str:
    """The husk under test: $HUSK (meson test sets it), else the build's."""
    path = os.environ.get("HUSK") or str(REPO / "build" / "src" / "cli" / "husk")
    if not os.access(path, os.X_OK):
        pytest.fail(f"no husk binary at {path}: build it (ninja -C build) or set HUSK", pytrace=False)
    return path


def _cgroup2_root() -> str:
    with open("/proc/self/mountinfo") as mountinfo:
        for line in mountinfo:
            fields = line.split()
            separator = fields.index("-")
            if fields[separator + 1] == "cgroup2":
                return fields[4]
    return ""


def _processes_with(marker: str) -> list:
    found = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit() or int(pid) == os.getpid():
            continue
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as cmdline:
                if marker.encode() in cmdline.read():
                    found.append(int(pid))
        except OSError:
            pass
    return found


class Runs:
    """Hands each run a fresh id and the test's state root, and remembers the ids for the check."""

    def __init__(self, husk: str, root: Path):
        self.husk = husk
        self.root = root
        self.ids = []

    def options(self, **options) -> dict:
        """Keyword arguments for run() or Sandbox(): the husk under test, the root, a new id."""
        run_id = f"pytest-{os.getpid()}-{next(_counter)}"
        self.ids.append(run_id)
        return {"husk": self.husk, "root": self.root, "id": run_id, **options}

    def leftovers(self) -> list:
        left = []
        listed = subprocess.run([self.husk, "--root", str(self.root), "list", "-q"], capture_output=True, text=True)
        left += [f"container {line} in husk list" for line in listed.stdout.split()]
        cgroup = _cgroup2_root()
        for run_id in self.ids:
            if cgroup and os.path.exists(os.path.join(cgroup, "husk", run_id)):
                left.append(f"cgroup {cgroup}/husk/{run_id}")
            left += [f"process {pid} naming {run_id}" for pid in _processes_with(run_id)]
        return left


@pytest.fixture
def runs(husk):
    """run(argv, **runs.options(...)): the real husk, a root of the test's own, and afterwards the check
    that the test left no container, cgroup or process behind."""
    # Not below pytest's tmp_path: /tmp/pytest-of-root is 0700, and husk sandbox mounts the sandbox's root
    # inside the state directory, which the sandbox's user namespace ids must be able to reach.
    root = Path(tempfile.mkdtemp(prefix="husk-pytest-"))
    root.chmod(0o711)
    tracker = Runs(husk, root)
    try:
        yield tracker
        assert tracker.leftovers() == []
    finally:
        shutil.rmtree(root, ignore_errors=True)
