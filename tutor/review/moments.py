"""Critical moments: the largest swings in the win chance, the player's errors and the cards' luck."""

from __future__ import annotations

from .facts import DEFAULT_MARKS, ErrorMoment, Grade, LuckMoment, MomentKind
from .grades import Label
from .values import Moment, MoveReview

__all__ = ["critical"]


def critical(moves: list[MoveReview], count: int = 5) -> list[Moment]:
    """The ``count`` largest swings (in the order of the game), as facts: their ``text`` is left to the words."""
    moments = []
    for m in moves:
        if m.graded and m.label >= Label.INACCURACY and m.paired is not None:
            grade = m.facts.grade if m.facts is not None else None
            marks = grade.marks if isinstance(grade, Grade) else DEFAULT_MARKS
            moments.append(Moment(m.ply, MomentKind.ERROR, m.win_before, m.win_after, "",
                                  ErrorMoment(m.move, m.best, m.drop, m.paired, m.samples, marks)))
        if m.luck is not None:
            # the luck's own two figures, on the deals it was measured on (the comment's): the move's
            # figure may rest on more deals drawn for its label, or be the game's result
            luck = m.facts.luck if m.facts is not None else None
            before = luck.before if luck is not None else m.win_after
            moments.append(Moment(m.ply, MomentKind.LUCK, before, before + m.luck, "",
                                  LuckMoment(m.seen, m.luck, m.luck_interval, before, luck)))
    moments.sort(key=lambda x: (-abs(x.swing), x.ply))
    # at one move, the error (the choice) comes before the luck (the cards it then turned up)
    return sorted(moments[:count], key=lambda x: (x.ply, x.kind != MomentKind.ERROR))
