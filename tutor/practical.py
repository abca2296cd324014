"""The practical win chance: what the tutor's own blind play wins from a position.

The clairvoyant estimate of a hint or a review (each sampled deal solved
with every card of it known) overstates what a player who sees only the
table can win: every sample picks its own line, as if it knew where the
face-down cards lie. The *practical* win chance plays the position out
instead: on deals consistent with what the player has seen, the tutor plays
blind to the end (:func:`tutor.policies.play_game`, the tutor policy of the
surveys), and the figure is the share of those games it wins. Every
consistent deal is played when there are no more than the games asked for,
and then the figure is exact (the tutor's play is deterministic, so the
share over every consistent deal is the value itself); else it is a sample
with its Wilson 95% interval.

Everything is seeded from the observation: the deals are
:meth:`~tutor.knowledge.Observation.samples` of it, and the tutor's play on
each deal depends only on that deal, so two positions that differ only in
cards the player never saw get the same figure. The chance *after* a move
plays the move on each of those deals first, so two moves of one position
are played out on the same deals (a paired comparison). A move lost in every
consistent deal (:func:`tutor.certainty.lost_for_certain`) has its win known:
its interval is 0-0, not the games' Wilson interval.

The games run on the project's process pool (:func:`tutor.pool.parallel_map`,
``workers`` processes; 1 plays them here). Costly: a whole blind game a deal
(5-75 s early in an Osmosis game, well under a second late with few unseen
cards).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any

from .certainty import lost_for_certain
from .errors import TutorError
from .estimate import Estimate
from .knowledge import Observation
from .notation import Move
from .policies import play_game
from .pool import WorkerPool
from .state import State

__all__ = ["METHOD", "MAX_GAMES", "Request", "practical_win", "practical_after", "practical_many", "won_count",
           "estimate_json", "playout"]

METHOD = "tutor playouts"
"""How the figure is made, as the review JSON's ``method`` says it."""

MAX_GAMES = 10_000
"""The most games one figure may ask for."""


def check_games(games: object) -> int:
    """``games`` as a count of blind games (1 to :data:`MAX_GAMES`), or a :class:`TutorError` saying what is right."""
    if isinstance(games, bool) or not isinstance(games, int) or not 1 <= games <= MAX_GAMES:
        raise TutorError(f"practical games {games!r} is not allowed: expected a whole number from 1 to "
                         f"{MAX_GAMES}, like 16")
    return games


def playout(job: tuple[State, Move | None, bool]) -> tuple[bool, int]:
    """One blind game: ``move`` (if any) on the deal, then the tutor's play to the end: (won, cards).

    Module level, so it pickles for the process pool.
    """
    state, move, infoset = job
    if move is not None:
        state = state.apply(move)
    end, _ = play_game(state, infoset=infoset)
    return end.won, end.cards


@dataclass(frozen=True, slots=True)
class Request:
    """One figure to compute: the practical win chance of ``obs`` (after ``move``, if given) on ``games`` deals."""

    obs: Observation
    games: int
    move: Move | None = None


def _deals(req: Request) -> tuple[list[State], bool]:
    """The deals of a request (from the observation's own seed) and whether they are every consistent one."""
    obs = req.obs
    if req.move is not None and req.move not in obs.legal_moves():
        legal = ", ".join(str(m) for m in obs.legal_moves()) or "none"
        raise TutorError(f"move {str(req.move)!r} is not legal in this position: expected one of {legal}")
    worlds = obs.samples(check_games(req.games))
    return worlds, len(worlds) == obs.consistent_deals()


def practical_many(requests: Sequence[Request], workers: int = 1, infoset: bool = True,
                   progress: Callable[[int, int], None] | None = None) -> list[Estimate]:
    """Every request's :class:`~tutor.estimate.Estimate`, all games on one pool of ``workers`` processes.

    ``progress(done, total)`` is called after each game. The figures do not
    depend on ``workers`` (each game depends only on its deal and move).
    """
    plans = [_deals(r) for r in requests]
    jobs: list[tuple[State, Move | None, bool]] = [(w, r.move, infoset) for r, (worlds, _) in zip(requests, plans)
                                                   for w in worlds]
    total = len(jobs)
    if progress is not None:  # said as they start: a review's bar sat full at the last position until the first
        progress(0, total)  # game ended, a minute on
    results: list[tuple[bool, int]] = []
    with WorkerPool(workers if total > 1 else 1) as pool:
        for outcome in pool.map(playout, jobs):
            results.append(outcome)
            if progress is not None:
                progress(len(results), total)
    out, at = [], 0
    for req, (worlds, exact) in zip(requests, plans):
        chunk = results[at:at + len(worlds)]
        at += len(worlds)
        est = Estimate.of([(won, float(cards)) for won, cards in chunk], exact)
        if not exact and req.move is not None and lost_for_certain(req.obs, req.move):
            est = replace(est, win_lo=0.0, win_hi=0.0)  # lost in every consistent deal: the win is known, not sampled
        out.append(est)
    return out


def practical_win(obs: Observation, games: int = 8, workers: int = 1, infoset: bool = True) -> Estimate:
    """The practical win chance from ``obs``: the tutor's blind play on ``games`` deals consistent with it.

    Every consistent deal when there are no more (then ``exact``). An
    :class:`~tutor.estimate.Estimate`: ``win`` with its Wilson 95% interval
    (``win_lo``, ``win_hi``), ``samples`` the games played, ``cards`` the mean
    final score.
    """
    return practical_many([Request(obs, games)], workers, infoset)[0]


def practical_after(obs: Observation, move: Move, games: int = 8, workers: int = 1,
                    infoset: bool = True) -> Estimate:
    """The practical win chance after ``move`` in ``obs``: the move on each of :func:`practical_win`'s deals,
    then the tutor's blind play to the end."""
    return practical_many([Request(obs, games, move)], workers, infoset)[0]


def won_count(est: Estimate) -> int:
    """How many of the games were won."""
    return round(est.win * est.samples)


def estimate_json(est: Estimate) -> dict[str, Any]:
    """``{"win", "interval": [lo, hi], "won", "games", "cards", "cards_interval": [lo, hi]}`` of one figure (the
    cards a mean over the games, with its 95% interval as every sampled figure has; both ends the mean when exact)."""
    return {"win": round(est.win, 4), "interval": [round(est.win_lo, 4), round(est.win_hi, 4)],
            "won": won_count(est), "games": est.samples, "cards": round(est.cards, 2),
            "cards_interval": [round(est.cards_lo, 2), round(est.cards_hi, 2)]}

