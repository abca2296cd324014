"""A hint computed in a thread that quitting the board stops and never waits for.

Textual's thread workers run in the event loop's default executor, which ``asyncio.run`` joins on the
way out: quitting while a hint was computed ("Thinking...") left the terminal blank until the hint was
done, 1 to 2 seconds. Here the computation has a daemon thread of its own; the board's worker (an
asyncio task) awaits its result, and when that worker is cancelled (the board quits, Textual cancels
its workers) the computation is stopped where it stands: :class:`Stopped` is raised inside the thread
(CPython's ``PyThreadState_SetAsyncExc``), and nobody waits for it to end. Left to run instead, the
thread held the interpreter's exit back by about half a second.

The hint's code is plain Python with its state in its own call (a fresh solve cache per hint); it never
writes a file, so stopping it between two of its steps leaves nothing half-done behind. An exception
raised in a thread lands at its next step, which may be a finaliser the garbage collector runs there:
Python swallows it (:func:`_quiet` drops the message it would print) and the stop is raised again.
"""

from __future__ import annotations

import asyncio
import ctypes
import sys
import threading
import time
from collections.abc import Callable
from typing import Any, TypeVar

T = TypeVar("T")

RETRY = 0.02  # seconds between two raises of Stopped, while the computation goes on (one was swallowed)
TRIES = 250  # then the thread is left to end by itself (a daemon: the process does not wait for it)


class Stopped(BaseException):
    """Raised inside a hint's thread to stop it (a BaseException: an ``except Exception`` there lets it through)."""


def _quiet(unraisable: Any) -> None:
    """``sys.unraisablehook`` that drops a Stopped swallowed in a finaliser and passes anything else on."""
    if unraisable.exc_type is not Stopped:
        _previous[0](unraisable)


_previous = [sys.unraisablehook]


class _Job:
    """One computation in its thread. ``computing`` is only ever read and changed under ``lock``, and
    Stopped only raised under it while ``computing``: so it lands in the thread before the thread has
    left :meth:`_outcome`, which catches it."""

    def __init__(self, compute: Callable[[], object], deliver: Callable[[object, BaseException | None], None],
                 name: str) -> None:
        self.compute, self.deliver = compute, deliver
        self.lock = threading.Lock()
        self.computing = False  # set and cleared by the thread itself
        self.stopped = False  # set by stop, maybe before the thread has begun
        self.thread = threading.Thread(target=self._run, name=name, daemon=True)

    def _run(self) -> None:
        outcome = self._outcome()
        if outcome is not None:
            self.deliver(*outcome)

    def _outcome(self) -> tuple[object, BaseException | None] | None:
        """``compute``'s value or exception; None when it was stopped."""
        outcome: tuple[object, BaseException | None] | None = None
        try:
            try:
                with self.lock:
                    self.computing = not self.stopped
                if self.computing:
                    outcome = (self.compute(), None)
            except Exception as exc:  # handed to the worker, which fails as any worker fails
                outcome = (None, exc)
        except Stopped:
            pass
        while True:
            try:  # a Stopped raised before the thread took the lock lands here, after the lock's exit at the latest
                with self.lock:
                    self.computing = False
                return outcome
            except Stopped:
                outcome = None

    def _raise(self) -> bool:
        """Raise Stopped in the thread if it still computes; whether it did."""
        with self.lock:
            if not self.computing or self.thread.ident is None:
                return False
            ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(self.thread.ident), ctypes.py_object(Stopped))
            return True

    def stop(self) -> None:
        """Stop the computation, without waiting for it: raised now, and again while it goes on."""
        if sys.unraisablehook is not _quiet:
            _previous[0] = sys.unraisablehook
            sys.unraisablehook = _quiet
        with self.lock:
            self.stopped = True
        if self._raise():
            threading.Thread(target=self._insist, name=f"{self.thread.name}-stop", daemon=True).start()

    def _insist(self) -> None:
        for _ in range(TRIES):
            time.sleep(RETRY)
            if not self._raise():
                return


async def in_thread(compute: Callable[[], T], name: str = "osmosis-hint") -> T:
    """``compute()`` in a daemon thread; cancelling the awaiting task stops it and does not wait for it."""
    loop = asyncio.get_running_loop()
    future: asyncio.Future[T] = loop.create_future()

    def settle(result: Any, error: BaseException | None) -> None:
        if future.done():  # cancelled meanwhile
            return
        if error is not None:
            future.set_exception(error)
        else:
            future.set_result(result)

    def deliver(result: object, error: BaseException | None) -> None:
        try:
            loop.call_soon_threadsafe(settle, result, error)
        except RuntimeError:  # the event loop is closed: the board is gone, and the hint with it
            pass

    job = _Job(compute, deliver, name)
    job.thread.start()
    try:
        return await future
    except asyncio.CancelledError:
        job.stop()
        raise


__all__ = ["Stopped", "in_thread"]
