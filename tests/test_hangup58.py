"""A closed terminal (SIGHUP to the whole process group) stops a review with its one line, as Ctrl-C does.

multiprocessing's resource tracker ignores SIGINT and SIGTERM but not SIGHUP: it died with the group, was
relaunched as the review stopped, and printed a dozen KeyError tracebacks under "interrupted" (stop 57)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pytest
from test_policies import review_at_work


def test_a_hung_up_review_says_interrupted_and_nothing_else(tmp_path):
    child, _ = review_at_work(tmp_path, new_session=True)
    time.sleep(0.5)  # the workers at work, the tracker holding their semaphores
    os.killpg(child.pid, signal.SIGHUP)  # what a closed terminal sends: the review, its pool, the tracker
    out, err = child.communicate(timeout=60)
    assert child.returncode == 130 and out == ""
    assert err == "interrupted\n"


def test_the_tracker_is_started_with_sighup_blocked(tmp_path):
    """The mask it keeps: a SIGHUP to the group no longer ends it (it ends when its pipe closes)."""
    code = ("import signal\n"
            "from multiprocessing import resource_tracker\n"
            "from tutor.stopping import start_resource_tracker\n"
            "start_resource_tracker()\n"
            "pid = resource_tracker._resource_tracker._pid\n"
            "status = open(f'/proc/{pid}/status').read()\n"
            "blocked = int(next(l for l in status.splitlines() if l.startswith('SigBlk:')).split()[1], 16)\n"
            "print(bool(blocked >> (signal.SIGHUP - 1) & 1), signal.SIGHUP in signal.pthread_sigmask("
            "signal.SIG_BLOCK, ()))\n")
    if not os.path.exists("/proc/self/status"):
        pytest.skip("no /proc here")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.stdout.split() == ["True", "False"], out.stderr  # blocked in the tracker, not left blocked here
