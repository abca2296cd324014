"""A killed osmosis leaves no worker process behind (tutor.pool.end_with_parent).

Killed (SIGKILL) just as its pool's fork server started, before the server had asked the system for a signal
when its parent ends, the server and a worker lived on for good, each holding the other's pipe and the
output open (8 of 10 `osmosis review` runs killed so): a pipeline reading that output never ended.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux") or not Path("/proc/self/stat").exists()
                                or "forkserver" not in multiprocessing.get_all_start_methods(),
                                reason="the parent's end is signalled on Linux, to forkserver workers")

CHILD = """
import time
from tutor.pool import WorkerPool
with WorkerPool(2) as pool:
    list(pool.map(time.sleep, [30, 30, 30, 30]))
"""


def _parents() -> dict[int, int]:
    """pid -> parent pid of every process (from /proc)."""
    out = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            out[int(entry.name)] = int(stat.rsplit(")", 1)[1].split()[1])
    return out


def _alive(pid: int) -> bool:
    try:
        return "zombie" not in Path(f"/proc/{pid}/status").read_text(errors="replace").lower()
    except OSError:
        return False


def _descendants(root: int) -> set[int]:
    parents = _parents()
    found, todo = set(), [root]
    while todo:
        pid = todo.pop()
        for child, parent in parents.items():
            if parent == pid and child not in found:
                found.add(child)
                todo.append(child)
    return found


@pytest.mark.parametrize("wait_for", [1, 3])  # killed as the fork server appears, and once the workers run
def test_no_worker_outlives_a_killed_osmosis(wait_for):
    for _ in range(3):
        proc = subprocess.Popen([sys.executable, "-c", CHILD], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        seen: set[int] = set()
        deadline = time.monotonic() + 60
        while len(seen) < wait_for and time.monotonic() < deadline:
            seen |= _descendants(proc.pid)
            time.sleep(0.005)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        seen |= _descendants(proc.pid)
        left = seen
        for _ in range(100):  # up to 10 s for the signal to reach them
            left = {pid for pid in left if _alive(pid)}
            if not left:
                break
            time.sleep(0.1)
        for pid in left:  # leave nothing behind whatever the outcome
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        assert not left, f"{len(left)} processes outlived their killed parent"
