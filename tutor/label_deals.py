"""More deals for a review label in doubt, drawn in batches that the review's worker processes share.

When the paired drop from the best move to the played one straddles a
label threshold on a position's shared deals, the review draws more deals
(:data:`LABEL_BATCH` at a time, up to the label budget) and
solves the compared moves in them until the band is settled. Those searches
are most of a review's work in a game with few passes (`limited`: the first
positions of a game, where nearly every deal is lost), and they used to run
inside the worker that scored the position, one batch after another, while
the other worker had nothing left to do.

Here the doubt is a value (:class:`Doubt`) that the review carries out of
its first pass; each batch is a job of its own (:func:`batch_job`), which
rebuilds the shared deals of its position from the game (cheap), solves
them in a fresh cache and returns their outcomes. The batches of one
position are read in order and the doubt rule stops at the same batch
whatever ran where, so the answer does not depend on the number of
processes: a batch read past the one that settled the band was only started
ahead to keep the processes busy and is dropped unread.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from .estimate import Drop, Estimate, paired_drop
from .hints import WIN_NODES
from .knowledge import SharedWorlds
from .notation import Move
from .pool import Task, WorkerPool
from .sampling import BANDS, SolveCache, band, outcomes_in
from .state import State

if TYPE_CHECKING:
    from .grading import PlyScore

Outcome = tuple[bool | None, int]
"""One sampled deal's outcome of a move: won (None: undecided at the limit) and the cards placed."""

LABEL_BATCH = 64
"""Deals drawn at a time for a label still in doubt."""

BatchJob = tuple[list[State], int, tuple[Move, ...], tuple[Move, ...], frozenset[Move], int, int, int]
"""``(states up to the position, ply, moves, certain moves, lost moves, first deal, end deal, worlds)``."""


def _won(outcomes: list[Outcome]) -> list[bool]:
    return [bool(w) for w, _ in outcomes]


@dataclass
class Doubt:
    """A graded position whose label band is still in doubt on the deals solved so far.

    ``moves``: the moves solved on the extra deals too (the best and the
    played one, and every other that won a shared deal, so that no win
    chance shown beside the label rests on other deals); ``certain`` and
    ``lost`` are those of them the position's rules settle. ``results``: per
    move, its outcome in each deal so far (the shared deals first), paired
    by deal. ``shared``: how many of them are the shared deals. ``every``: they
    are every consistent deal, so none is left to draw; ``exact``: and none
    was left undecided at a node limit, so the drop is exact.
    """

    ply: int
    best: Move
    move: Move
    moves: tuple[Move, ...]
    certain: tuple[Move, ...]
    lost: frozenset[Move]
    results: dict[Move, list[Outcome]]
    shared: int
    exact: bool = False
    every: bool = False
    drop: Drop = field(init=False)

    def __post_init__(self) -> None:
        self.drop = paired_drop(_won(self.results[self.best]), _won(self.results[self.move]), self.exact)

    @property
    def done(self) -> int:
        return len(self.results[self.best])

    def open(self, budget: int, bands: tuple[float, float, float] = BANDS) -> bool:
        """More deals are wanted: the budget not reached and the drop's interval straddling a threshold."""
        return not self.every and self.done < budget and band(self.drop.lo * 100, bands) != band(self.drop.hi * 100,
                                                                                                   bands)

    def end(self, budget: int) -> int:
        """Where the next batch of deals ends (it starts at :attr:`done`)."""
        return min(budget, self.done + LABEL_BATCH)

    def add(self, batch: dict[Move, list[Outcome]]) -> None:
        """The next batch's outcomes (the deals from :attr:`done` on)."""
        for m in self.moves:
            self.results[m].extend(batch[m])
        self.drop = paired_drop(_won(self.results[self.best]), _won(self.results[self.move]))

    def job(self, states: list[State], start: int, end: int, worlds: int) -> BatchJob:
        """The batch of deals ``start..end-1`` as a job for :func:`batch_job` (``worlds``: the shared deals'
        count, as the review draws them)."""
        return (states[: self.ply + 1], self.ply, self.moves, self.certain, self.lost, start, end, worlds)

    def settle(self, score: PlyScore) -> PlyScore:
        """``score`` with the drop on every deal drawn, and, where deals were added, each compared move's win
        chance on them (``wide``; its cards stay the shared deals', whose best scores were searched)."""
        wide: dict[Move, Estimate] = {}
        if self.done > self.shared:
            for m in self.moves:
                own = score.estimates[m]
                est = replace(Estimate.of(self.results[m]), cards=own.cards, cards_lo=own.cards_lo,
                              cards_hi=own.cards_hi)
                wide[m] = known(est, m in score.lost)
        return replace(score, drop=self.drop, wide=wide, doubt=None)


def known(est: Estimate, lost: bool) -> Estimate:
    """A move's estimate, its win known (no interval) when it loses in every consistent deal."""
    return replace(est, win_lo=0.0, win_hi=0.0) if lost else est


def solve_batch(deals: list[State], moves: tuple[Move, ...], certain: tuple[Move, ...], lost: frozenset[Move],
                cache: SolveCache) -> dict[Move, list[Outcome]]:
    """Each move's outcome in each of ``deals``, solved for the win only (a lost deal's best score is not
    searched on the extra deals, which would double a ``limited`` review)."""
    out: dict[Move, list[Outcome]] = {m: [] for m in moves}
    for d in deals:
        r = outcomes_in(d, list(moves), list(certain), set(lost), WIN_NODES, 0, cache)
        for m in moves:
            out[m].append(r[m])
    return out


def batch_job(job: BatchJob) -> dict[Move, list[Outcome]]:
    """One batch of a label's extra deals, in any process: the shared deals rebuilt from the game's first
    position and carried to the position (as the review's first pass draws them), then solved."""
    states, ply, moves, certain, lost, start, end, count = job
    worlds = SharedWorlds(states[0], count)
    for k in range(1, ply + 1):
        worlds.advance(states[k])
    return solve_batch(worlds.states(states[ply], end)[start:], moves, certain, lost, SolveCache())


class Batches:
    """The positions whose label is in doubt, each with the batches of its extra deals under way on ``pool``, in
    order (``states``: the game's positions; ``worlds``: how many shared deals the review draws)."""

    def __init__(self, pool: WorkerPool, states: list[State], budget: int, bands: tuple[float, float, float],
                 worlds: int) -> None:
        self.pool, self.states, self.budget, self.bands, self.worlds = pool, states, budget, bands, worlds
        self.waiting: dict[int, tuple[PlyScore, deque[Task[dict[Move, list[Outcome]]]]]] = {}

    def wait(self, score: PlyScore) -> None:
        """A position's score whose ``doubt`` is still open: its batches are drawn from the next :meth:`top_up`."""
        self.waiting[score.ply] = (score, deque())

    def top_up(self) -> None:
        """Each position in doubt keeps its next batches under way, enough of them to keep every process busy."""
        ahead = -(-self.pool.workers // max(1, len(self.waiting)))
        for score, tasks in self.waiting.values():
            doubt = score.doubt
            assert doubt is not None
            start = doubt.done + LABEL_BATCH * len(tasks)
            while len(tasks) < ahead and start < self.budget:
                end = min(self.budget, start + LABEL_BATCH)
                tasks.append(self.pool.submit(batch_job, doubt.job(self.states, start, end, self.worlds)))
                start = end

    def settle(self, take: Callable[[PlyScore], None]) -> None:
        """Read every position's batches in order until its band is settled, and ``take`` its settled score."""
        while self.waiting:
            for ply in sorted(self.waiting):
                score, tasks = self.waiting[ply]
                doubt = score.doubt
                assert doubt is not None
                doubt.add(tasks.popleft().result())
                if not doubt.open(self.budget, self.bands):  # settled: the batches started ahead are dropped unread
                    for task in tasks:
                        task.cancel()
                    del self.waiting[ply]
                    take(doubt.settle(score))
            self.top_up()
