"""Critical moments: the largest swings in the win chance, the player's errors and the cards' luck."""

from __future__ import annotations

from .facts import ErrorMoment, LuckMoment, MomentKind
from .grades import Label
from .values import Moment, MoveReview

__all__ = ["critical"]


def critical(moves: list[MoveReview], count: int = 5) -> list[Moment]:
    """The ``count`` largest swings (in the order of the game), as facts: their ``text`` is left to the words."""
    moments = []
    for m in moves:
        if m.graded and m.label >= Label.INACCURACY and m.paired is not None:
            moments.append(Moment(m.ply, MomentKind.ERROR, m.win_before, m.win_after, "",
                                  ErrorMoment(m.move, m.best, m.drop, m.paired, m.samples)))
        if m.luck is not None:
            moments.append(Moment(m.ply, MomentKind.LUCK, m.win_after, m.win_after + m.luck, "",
                                  LuckMoment(m.seen, m.luck, m.luck_interval, m.win_after)))
    moments.sort(key=lambda x: (-abs(x.swing), x.ply))
    # at one move, the error (the choice) comes before the luck (the cards it then turned up)
    return sorted(moments[:count], key=lambda x: (x.ply, x.kind != MomentKind.ERROR))
