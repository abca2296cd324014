"""A survey's own Dask cluster on this machine (:class:`tutor.engines.DaskEngine`): its scratch folder, and its
workers stopped at once when the survey is interrupted."""

from __future__ import annotations

import logging
import os
import shutil
import signal
import tempfile
from pathlib import Path
from typing import Any

PREFIX = "osmosis-dask-"


def new_scratch() -> str:
    """A new scratch folder named by this process (``osmosis-dask-PID-...``), once the folders of surveys whose
    process is gone are removed (a kill or the out-of-memory killer gives a survey no time to remove its own)."""
    remove_left_behind()
    return tempfile.mkdtemp(prefix=f"{PREFIX}{os.getpid()}-")


def remove_left_behind() -> None:
    """The scratch folders of surveys whose process is gone; only this user's go."""
    for folder in Path(tempfile.gettempdir()).glob(f"{PREFIX}*-*"):
        try:
            pid = int(folder.name[len(PREFIX):].split("-")[0])
            if folder.stat().st_uid != os.getuid() or pid == os.getpid():
                continue
            os.kill(pid, 0)
        except ProcessLookupError:
            shutil.rmtree(folder, ignore_errors=True)
        except (ValueError, OverflowError, OSError):  # no process's number, or another user's: not ours
            continue


def stop_workers(cluster: Any) -> None:
    """Stop the worker processes of a ``LocalCluster`` this process started, now (an interrupted survey: their
    batches are dropped anyway). Asked to close, a worker busy with a batch waits for it for 4 s before its
    nanny kills it; each nanny is told first that its worker goes for good (not restarted)."""
    # a write to a worker just stopped fails in a task of dask's no one awaits: asyncio would log it, with its
    # traceback, as the process ends ("Task exception was never retrieved ... CommClosedError")
    logging.getLogger("asyncio").setLevel(logging.CRITICAL)
    for nanny in list(cluster.workers.values()):
        try:
            nanny.close_gracefully(reason="interrupted")
            if nanny.pid:
                os.kill(nanny.pid, signal.SIGKILL)
        except (AttributeError, OSError):  # a worker already gone, or no nanny of ours
            continue
