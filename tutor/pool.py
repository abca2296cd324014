"""THE process pool: the only place that starts worker processes.

:class:`WorkerPool` (and :func:`parallel_map` over it) starts ``forkserver``
workers where the system has them, else ``spawn`` ones: safe beside the
threads of a progress display or a Dask client. Results come back in the
order of the items. When no process can be started, the jobs run in this
process; when a worker dies (the pool breaks), the jobs it left run here
too, so a result is never lost to the pool. An exception raised by a job
reaches the caller as it is.

**Stopping.** The workers ignore Ctrl-C (SIGINT): the terminal sends it to
the whole process group, and only this process should act on it. When the
pool is left by an exception (Ctrl-C's KeyboardInterrupt, a SIGTERM turned
into one), the workers are stopped at once, not waited for. On Linux a
worker, and the fork server it comes from, also end when their parent
ends (``PR_SET_PDEATHSIG``), so a killed ``osmosis`` leaves no process
behind holding its output open.

Not part of any engine version (:func:`tutor.policies.engine_version`): how
jobs are spread over processes never changes an answer.
"""

from __future__ import annotations

import ctypes
import logging
import multiprocessing
import os
import signal
import sys
import threading
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import BrokenExecutor, Future, ProcessPoolExecutor
from itertools import islice
from types import TracebackType
from typing import Generic, TypeVar

from .errors import TutorError

log = logging.getLogger(__name__)

T = TypeVar("T")
R = TypeVar("R")

PR_SET_PDEATHSIG = 1
"""prctl(2)'s option: the signal this process gets when its parent ends."""


PARENT_ENV = "OSMOSIS_POOL_PARENT"
"""The process a pool's child should have as its parent (its pid), as the environment hands it down."""


def end_with_parent() -> None:
    """On Linux, have this process get SIGTERM when its parent ends (nothing elsewhere, or on failure).

    A parent killed before the call sends no signal: the process was handed to another parent already, so
    it ends now (``osmosis review`` killed as its fork server started left the server and a worker running,
    each holding the other's pipe and the output open). Its own children check against it in turn."""
    if not sys.platform.startswith("linux"):
        return
    expected = os.environ.get(PARENT_ENV, "")
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(PR_SET_PDEATHSIG, int(signal.SIGTERM), 0, 0, 0)
    except (OSError, AttributeError):  # no libc to call: the process lives on as before
        return
    if expected.isdigit() and os.getppid() != int(expected):
        os._exit(0)  # the parent is gone: nothing is left to work for
    os.environ[PARENT_ENV] = str(os.getpid())


def _worker_start() -> None:
    """Each worker, as it starts: Ctrl-C is the main process's to handle; end with the parent."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    end_with_parent()


POOL_ERRORS = (OSError, ValueError)
"""What starting a worker process raises where processes cannot be made (then jobs run here)."""


class Task(Generic[R]):
    """A job given to a :class:`WorkerPool`; :meth:`result` is its value.

    A job the pool could not take, or lost with a dying worker, is computed
    here, in this process, when its result is asked for.
    """

    __slots__ = ("_fn", "_args", "_future", "_pool", "_value", "_done")

    def __init__(self, pool: WorkerPool, fn: Callable[..., R], args: tuple[object, ...],
                 future: Future[R] | None) -> None:
        self._pool, self._fn, self._args, self._future = pool, fn, args, future
        self._done = False
        self._value: R | None = None

    def result(self) -> R:
        if not self._done:
            value: R
            if self._future is not None:
                try:
                    value = self._future.result()
                except BrokenExecutor:
                    self._pool._broken()
                    value = self._fn(*self._args)
            else:
                value = self._fn(*self._args)
            self._value, self._done, self._future = value, True, None
        return self._value  # type: ignore[return-value]  # set above: R, whatever R is

    def cancel(self) -> None:
        """Drop the job if no worker has started it."""
        if self._future is not None:
            self._future.cancel()


class WorkerPool:
    """THE process pool: ``workers`` processes, or this process alone (``workers`` 1, or no processes here).

    Use it as a context manager (or call :meth:`close`); :meth:`map` for an
    ordered stream of results, :meth:`submit` for one job at a time.
    ``fn`` and its arguments must pickle (a module-level function).
    """

    def __init__(self, workers: int) -> None:
        if workers < 1:
            raise TutorError(f"workers {workers!r} is not allowed: expected 1 or more")
        self._executor: ProcessPoolExecutor | None = None
        if workers > 1:
            methods = multiprocessing.get_all_start_methods()
            method = "forkserver" if "forkserver" in methods else "spawn"
            ctx = multiprocessing.get_context(method)
            if method == "forkserver":
                from .stopping import start_resource_tracker

                start_resource_tracker()  # the fork server starts it otherwise: a closed terminal then killed it
                # the fork server imports this module's child side first, so it ends with this process too;
                # only when started from the main thread: the system signals the end of the *thread* that
                # started it, and a pool's own thread may end long before the process does
                main = threading.current_thread() is threading.main_thread()
                ctx.set_forkserver_preload(["tutor.pool_child"] if main else [])
                if main:  # the fork server's parent, for end_with_parent to check
                    os.environ[PARENT_ENV] = str(os.getpid())
                else:
                    os.environ.pop(PARENT_ENV, None)
            try:
                self._executor = ProcessPoolExecutor(max_workers=workers, mp_context=ctx,
                                                     initializer=_worker_start)
            except POOL_ERRORS as exc:
                log.warning("no worker processes here (%s): the jobs run in this process", exc)
        self.workers = workers if self._executor is not None else 1

    @property
    def parallel(self) -> bool:
        """Jobs run in worker processes (False: in this one)."""
        return self._executor is not None

    def submit(self, fn: Callable[..., R], *args: object) -> Task[R]:
        """Start ``fn(*args)`` in a worker (or, with no workers, when its result is asked for)."""
        future = None
        if self._executor is not None:
            try:
                future = self._executor.submit(fn, *args)
            except BrokenExecutor:
                self._broken()
            except POOL_ERRORS as exc:
                log.warning("cannot start a worker process (%s): the jobs run in this process", exc)
                self._shutdown()
        return Task(self, fn, args, future)

    def map(self, fn: Callable[[T], R], items: Iterable[T], chunksize: int = 1,
            window: int | None = None) -> Iterator[R]:
        """``fn(item)`` for every item, in the order of ``items``, each result as soon as it and those before it
        are in.

        ``items`` is read lazily: at most ``window`` jobs (of ``chunksize``
        items each; default 4 a worker) are out at a time. A job that
        raises stops the stream with its exception (the jobs not started
        are dropped).
        """
        if chunksize < 1:
            raise TutorError(f"chunksize {chunksize!r} is not allowed: expected 1 or more")
        if chunksize == 1:
            yield from self._stream(fn, iter(items), window)
            return
        it = iter(items)
        chunks = iter(lambda: list(islice(it, chunksize)), [])
        for done in self._stream(_Chunk(fn), chunks, window):
            yield from done

    def _stream(self, fn: Callable[[T], R], items: Iterator[T], window: int | None) -> Iterator[R]:
        size = window or 4 * self.workers
        pending: deque[Task[R]] = deque()
        try:
            for item in items:
                pending.append(self.submit(fn, item))
                while len(pending) >= size:
                    yield pending.popleft().result()
            while pending:
                yield pending.popleft().result()
        finally:
            for task in pending:
                task.cancel()

    def _broken(self) -> None:
        if self._executor is not None:
            log.warning("a worker process died: the jobs it left run in this process")
            self._shutdown()

    def _shutdown(self, now: bool = False) -> None:
        executor, self._executor = self._executor, None
        if executor is not None:
            if now:
                # the running jobs are not waited for: their processes are stopped (a Ctrl-C waited out
                # the whole review before)
                processes = list((getattr(executor, "_processes", None) or {}).values())
                executor.shutdown(wait=False, cancel_futures=True)
                for process in processes:
                    if process.is_alive():
                        process.terminate()
                for process in processes:
                    process.join(timeout=5)
            else:
                executor.shutdown(wait=True, cancel_futures=True)
        self.workers = 1

    def close(self, now: bool = False) -> None:
        """Stop the workers (jobs not started are dropped; ``now``: running ones are stopped too)."""
        self._shutdown(now)

    def __enter__(self) -> WorkerPool:
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        # left by an exception (Ctrl-C, a SIGTERM turned into one): no result is wanted, stop at once
        self.close(now=exc is not None)


class _Chunk(Generic[T, R]):
    """``fn`` over a list of items, as one job (picklable when ``fn`` is)."""

    def __init__(self, fn: Callable[[T], R]) -> None:
        self.fn = fn

    def __call__(self, items: list[T]) -> list[R]:
        return [self.fn(item) for item in items]


def parallel_map(fn: Callable[[T], R], items: Iterable[T], workers: int, chunksize: int = 1,
                 window: int | None = None) -> Iterator[R]:
    """``fn(item)`` for every item, in order, on a :class:`WorkerPool` of ``workers`` processes opened for it.

    The pool closes when the results are exhausted (or the iterator is
    closed). See :meth:`WorkerPool.map`.
    """
    with WorkerPool(workers) as pool:
        yield from pool.map(fn, items, chunksize, window)
