import os
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
os.environ.setdefault("PASSCODE_LIBRARY", os.path.join(ROOT, "build", "libpasscode.so.0"))
sys.path.insert(0, os.path.join(ROOT, "python"))

import passcode  # noqa: E402

PC1, PC2, PC3 = "386491", "915372", "502817"


class Clock:
    """A host clock the tests move by hand: (boot_ms, wall_ms, boot_id)."""

    def __init__(self):
        self.boot, self.wall, self.boot_id = 1_000_000, 1_700_000_000_000, 5

    def __call__(self):
        return self.boot, self.wall, self.boot_id

    def advance(self, seconds):
        """Time passes: both clocks move."""
        self.boot += int(seconds * 1000)
        self.wall += int(seconds * 1000)


@pytest.fixture
def clock():
    return Clock()


@pytest.fixture
def store(tmp_path, clock):
    with passcode.Store(str(tmp_path / "store.db"), ops_limit=1, mem_limit=8192, clock=clock) as s:
        yield s


@pytest.fixture
def locked_store(store):
    store.set_passcode(PC1)
    return store
