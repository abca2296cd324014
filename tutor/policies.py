"""Play policies, the one function that plays a position with one, and the one process pool.

Policies (:class:`Policy`; the strings are the ``--policy`` choices and the
``policy`` of every survey's JSON):

- ``solver``: full knowledge; a deal counts as won if the solver finds a win
  (undecided deals are counted apart) and its score is the best the solver
  reaches.
- ``greedy``: plays the first playable card in the fixed move order
  (r1..r4, then w), else turns the talon, until the game is over.
- ``tutor``: follows the tutor's own choice at every move, seeing only what a
  player sees (:func:`play_game` on :func:`tutor.knowledge.observe`). Slow:
  every move samples and solves many deals.

:func:`play` plays a position with a policy, :func:`play_deal` a numbered
deal, :func:`play_batch` a survey's unit of work. Every deal is played on its
own, with no shared state and no randomness beyond what the deal number and
the position fix, so results never depend on the number of processes.

**The process pool.** :class:`WorkerPool` (and :func:`parallel_map` over it)
is the only place that starts worker processes (``forkserver`` where the
system has it, else ``spawn``: safe beside the threads of a progress display
or a Dask client). Results come back in the order of the items. When no
process can be started, the jobs run in this process; when a worker dies
(the pool breaks), the jobs it left run here too, so a result is never lost
to the pool. An exception raised by a job reaches the caller as it is.
"""

from __future__ import annotations

import hashlib
import logging
import multiprocessing
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import BrokenExecutor, Future, ProcessPoolExecutor
from dataclasses import dataclass
from enum import StrEnum
from functools import cache
from itertools import islice
from pathlib import Path
from types import TracebackType
from typing import Generic, TypeVar

from .deals import deal_for
from .errors import TutorError
from .notation import Move
from .rules import Rules
from .search import DEFAULT_LIMIT, Limit, solve
from .state import State

log = logging.getLogger(__name__)

T = TypeVar("T")
R = TypeVar("R")


class Policy(StrEnum):
    """Who plays a survey's deals (the value is the ``--policy`` string and the JSON's ``policy``)."""

    SOLVER = "solver"
    GREEDY = "greedy"
    TUTOR = "tutor"


POLICIES: tuple[str, ...] = tuple(p.value for p in Policy)
"""The policy names, in the order the CLI lists them."""


def parse_policy(name: str) -> Policy:
    """The policy called ``name``; an unknown name is a :class:`TutorError` listing the right ones."""
    try:
        return Policy(name)
    except ValueError:
        raise TutorError(f"unknown policy {name!r}: expected one of {', '.join(POLICIES)}") from None


@dataclass(frozen=True)
class DealOutcome:
    """One deal's result: ``won`` is None when the solver could not decide.

    ``tried``: with the solver policy, the node limit of the last search
    behind the verdict (the second search's when there was one).
    """

    number: int
    won: bool | None
    cards: int
    seconds: float
    tried: int | None = None


@dataclass(frozen=True, slots=True)
class Played:
    """How a policy did from one position: ``won`` (None: the solver could not decide), the final
    score ``cards`` (52 for a win), and for the solver the node limit behind the verdict."""

    won: bool | None
    cards: int
    tried: int | None = None


# ---------------------------------------------------------------- the policies


def play_greedy(state: State) -> State:
    """The first playable card in move order (r1..r4, w), else a turn, until the game is over."""
    while True:
        moves = state.legal_moves()
        if not moves:
            return state
        state = state.apply(moves[0])


def play_game(state: State, samples: int | None = None, limit: Limit | None = None,
              final_nodes: int = 2_000_000, infoset: bool = True) -> tuple[State, list[Move]]:
    """The tutor plays from ``state`` to the end, seeing only what a player sees.

    Each move is :func:`tutor.hints.choose`'s (the hint's choice, with a
    cheaper search for the expected-cards tie-break). Once nothing is hidden
    any more (the observation is complete), the tutor knows the whole
    position, like any attentive player, and follows the solver's line from
    there. Returns the final position and the moves played.
    """
    from .hints import choose
    from .knowledge import observe

    moves: list[Move] = []
    while not state.over:
        obs = observe(state)
        if obs.complete:
            res = solve(state, Limit(nodes=final_nodes))
            if res.line:
                for m in res.line:
                    state = state.apply(m)
                    moves.append(m)
                if state.over or res.winnable:
                    break
                continue
        move = choose(obs, samples, limit, infoset)
        state = state.apply(move)
        moves.append(move)
    return state, moves


def play_tutor(state: State) -> State:
    """Follow the tutor's choices, built only from what the player has seen, until the game is over."""
    return play_game(state)[0]


def play(state: State, policy: Policy | str, limit: Limit = DEFAULT_LIMIT, retry_nodes: int | None = None,
         infoset: bool = True) -> Played:
    """Play ``state`` with ``policy``: the one way every survey and benchmark plays a position.

    With the solver, a position the search leaves undecided at ``limit`` gets
    a second, win-only search (faster on lost deals) with ``retry_nodes``
    positions, when that is more than the limit's. ``infoset``: with the
    tutor, False plays PIMC's choice alone (the information-set search off).
    """
    policy = parse_policy(policy)
    if policy is Policy.SOLVER:
        res = solve(state, limit)
        won, cards, tried = res.winnable, res.best_cards, limit.nodes
        if won is None and retry_nodes and limit.nodes is not None and retry_nodes > limit.nodes:
            again = solve(state, Limit(nodes=retry_nodes, seconds=limit.seconds), want="win")
            won, cards, tried = again.winnable, max(cards, again.best_cards), retry_nodes
        return Played(won, 52 if won else cards, tried)
    if policy is Policy.GREEDY:
        end = play_greedy(state)
    else:
        end = play_game(state, infoset=infoset)[0]
    return Played(end.won, end.cards)


def play_deal(number: int, rules: Rules, policy: Policy | str, limit: Limit = DEFAULT_LIMIT,
              retry_nodes: int | None = None) -> DealOutcome:
    """Play deal ``number`` under ``rules`` with one policy (:func:`play`), timed."""
    t0 = time.perf_counter()
    result = play(State.initial(deal_for(number, rules), rules), policy, limit, retry_nodes)
    return DealOutcome(number, result.won, result.cards, time.perf_counter() - t0, result.tried)


def play_batch(numbers: Iterable[int], rules: Rules, policy: Policy | str, limit: Limit = DEFAULT_LIMIT,
               retry_nodes: int | None = None) -> tuple[str, list[DealOutcome]]:
    """Play a batch of deals: the unit of work a survey sends to a worker.

    Pure and idempotent (the same arguments give the same outcomes, bar the
    timings), so a batch lost with its worker can simply run again. Returns
    the engine version too, so a worker with another solver is caught.
    """
    return engine_version(policy), [play_deal(n, rules, policy, limit, retry_nodes) for n in numbers]


_BASE = ("cards", "rules", "deals", "notation", "state", "policies")
_SOLVER = ("constraints", "search", "search_dfs", "search_moves", "search_proof")
_ENGINE_MODULES = {
    Policy.GREEDY: _BASE,
    Policy.SOLVER: _BASE + _SOLVER,
    Policy.TUTOR: _BASE + _SOLVER + ("knowledge", "hints", "certainty", "sampling", "estimate", "infoset"),
}


@cache
def engine_version(policy: Policy | str) -> str:
    """A short hash of the source of every module that decides a policy's answers.

    Stored results are keyed by it, so a changed solver never reuses old answers.
    """
    policy = parse_policy(policy)
    digest = hashlib.sha256(policy.value.encode())
    here = Path(__file__).parent
    for name in _ENGINE_MODULES[policy]:
        digest.update((here / f"{name}.py").read_bytes())
    return digest.hexdigest()[:12]


# ---------------------------------------------------------------- the process pool


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
            ctx = multiprocessing.get_context("forkserver" if "forkserver" in methods else "spawn")
            try:
                self._executor = ProcessPoolExecutor(max_workers=workers, mp_context=ctx)
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

    def _shutdown(self) -> None:
        executor, self._executor = self._executor, None
        if executor is not None:
            executor.shutdown(wait=True, cancel_futures=True)
        self.workers = 1

    def close(self) -> None:
        """Stop the workers (jobs not started are dropped)."""
        self._shutdown()

    def __enter__(self) -> WorkerPool:
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()


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
