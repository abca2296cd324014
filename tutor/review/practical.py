"""The practical win chance at the review's errors: the tutor's own blind play after each move.

For each critical moment of kind error, :func:`add_practical` plays the
position out blind (:mod:`tutor.practical`) after the move played and after
the best move, from the position as the player saw it then (its
observation, never the true deal), on the same deals consistent with what
the player had seen. The clairvoyant win chances of the grades solve each
sampled deal with every card known; these are what a player who sees only
the table (the tutor) really wins from there.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from ..knowledge import observe
from ..practical import Request, check_games, practical_many
from .facts import ErrorMoment, MomentKind, Practical
from .values import Review

__all__ = ["add_practical", "error_requests"]


def error_requests(rev: Review, games: int) -> list[tuple[int, list[Request]]]:
    """For each error moment (its index in ``rev.critical``): the requests after the move played and the best."""
    states = list(rev.states) or rev.record.states()
    out = []
    for k, moment in enumerate(rev.critical):
        fact = moment.fact
        if moment.kind is not MomentKind.ERROR or not isinstance(fact, ErrorMoment):
            continue
        obs = observe(states[moment.ply - 1])
        out.append((k, [Request(obs, games, fact.move), Request(obs, games, fact.best)]))
    return out


def add_practical(rev: Review, games: int, workers: int = 1,
                  progress: Callable[[int, int], None] | None = None) -> Review:
    """``rev`` with the practical win chance on each error moment (facts only: the words come later).

    ``games``: blind games a move (every consistent deal when there are no
    more). All the games run on one pool of ``workers`` processes;
    ``progress(done, total)`` after each.
    """
    check_games(games)
    plan = error_requests(rev, games)
    flat = [r for _, pair in plan for r in pair]
    figures = practical_many(flat, workers, progress=progress) if flat else []
    for i, (k, (played, best)) in enumerate(plan):
        a, b = figures[2 * i], figures[2 * i + 1]
        assert played.move is not None and best.move is not None
        fact = Practical(played.move, best.move, a, b, a.samples, a.exact and b.exact)
        rev.critical[k] = replace(rev.critical[k], practical=fact)
    rev.practical = games
    return rev
