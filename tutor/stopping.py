"""Ctrl-C, kill and a closed terminal while a survey's local cluster starts and stops.

A Dask cluster started by a survey must be started whole (one half built cannot be closed, and dask's own exit
hook then fails with a traceback) and stopped whole (stopped halfway, dask's exit hooks finish it on a timeout,
with their log lines): :func:`sigint_ignored` holds the signals that stop a survey while its cluster starts,
and raises them as one KeyboardInterrupt once it stands; :func:`stops_ignored` lets it stop undisturbed.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager


def start_resource_tracker() -> None:
    """multiprocessing's resource tracker started (if it is not running) with SIGHUP blocked, a mask it keeps.

    The tracker ignores SIGINT and SIGTERM but not SIGHUP: a closed terminal (SIGHUP to the whole process
    group) killed it, and the survey or review stopping then relaunched it, whose cleanup printed a dozen
    KeyError tracebacks under the one "interrupted" line. It ends when this process does (its pipe closes)."""
    from multiprocessing import resource_tracker

    if not (hasattr(signal, "pthread_sigmask") and threading.current_thread() is threading.main_thread()):
        resource_tracker.ensure_running()
        return
    mask = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGHUP})
    try:
        resource_tracker.ensure_running()
    finally:  # a SIGHUP that came meanwhile is this process's to take, as it would have been
        signal.pthread_sigmask(signal.SIG_SETMASK, mask)


@contextmanager
def sigint_ignored() -> Iterator[None]:
    """SIGINT ignored while the block runs, and by the processes it starts (a disposition they keep); a Ctrl-C
    pressed meanwhile is held, not lost, and this process takes it as the block ends (KeyboardInterrupt there).

    Held: SIGINT is blocked too, and Linux keeps a blocked signal pending even while it is ignored; the handler
    is put back before it is unblocked. Ignored alone, the Ctrl-C pressed while a Dask cluster started (a
    second or two) was lost, and the survey ran on. multiprocessing's resource tracker, started on first use,
    unblocks SIGINT after it starts: it is started first. (In the main thread only; elsewhere neither can be
    changed.)"""
    if not (hasattr(signal, "pthread_sigmask") and threading.current_thread() is threading.main_thread()):
        yield
        return
    start_resource_tracker()
    # Read first and changed inside the try: a KeyboardInterrupt (a Ctrl-C just before, or kill turned into
    # one by stopped_like_ctrl_c) may come out of any of these calls, and must not leave SIGINT blocked.
    mask = signal.pthread_sigmask(signal.SIG_BLOCK, ())
    before = signal.getsignal(signal.SIGINT)
    # kill and a closed terminal, where they stop the survey as Ctrl-C does (a handler of this program's):
    # noted, not raised in the middle of starting a cluster (a half-built one could not be closed, and dask's
    # own exit hook then failed with a traceback), and raised as the block ends. Not blocked: the processes
    # started here keep a blocked signal, and a worker that cannot be sent SIGTERM cannot be stopped.
    held: list[int] = []
    stops = {sig: handler for sig in (signal.SIGTERM, signal.SIGHUP)
             if callable(handler := signal.getsignal(sig))}
    try:
        for sig in stops:
            signal.signal(sig, lambda signum, frame: held.append(signum))
        signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        yield
    finally:
        interrupted = False
        while True:  # all put back, whatever KeyboardInterrupt comes out of any call; then raised once
            try:
                for sig, handler in stops.items():
                    signal.signal(sig, handler)
                signal.signal(signal.SIGINT, before)
                signal.pthread_sigmask(signal.SIG_SETMASK, mask)  # a Ctrl-C held meanwhile is taken here
                break
            except KeyboardInterrupt:
                interrupted = True
        if interrupted or held:
            raise KeyboardInterrupt


@contextmanager
def stops_ignored() -> Iterator[None]:
    """Ctrl-C, kill and a closed terminal ignored while the block runs (in the main thread; where one is
    already ignored, as under nohup, it stays so): for the stopping of what is already being stopped."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    kept = {sig: handler for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
            if (handler := signal.getsignal(sig)) is not None}  # None: set outside Python, left as it is
    for sig in kept:
        signal.signal(sig, signal.SIG_IGN)
    try:
        yield
    finally:
        for sig, handler in kept.items():
            signal.signal(sig, handler)
