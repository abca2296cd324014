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
            paired = m.paired
            moments.append(Moment(m.ply, MomentKind.ERROR, m.win_before, m.win_after, "",
                                  ErrorMoment(m.move, m.best, m.drop, paired, m.samples, marks),
                                  samples=m.samples, samples_after=m.samples, before_interval=m.win_before_interval,
                                  after_interval=m.win_after_interval, swing_interval=(-paired.hi, -paired.lo),
                                  swing_samples=paired.samples,
                                  exact_before=m.exact, exact_after=m.exact))
        if m.luck is not None:
            # the luck's own two figures, on the deals it was measured on (the comment's): the move's
            # figure may rest on more deals drawn for its label, or be the game's result
            luck = m.facts.luck if m.facts is not None else None
            before = luck.before if luck is not None else m.win_after
            fact = LuckMoment(m.seen, m.luck, m.luck_interval, before, luck)
            if luck is not None:
                moments.append(Moment(m.ply, MomentKind.LUCK, before, before + m.luck, "", fact,
                                      samples=luck.deals, samples_after=luck.deals_after,
                                      before_interval=luck.before_interval, after_interval=luck.after_interval,
                                      swing_interval=m.luck_interval, exact_before=luck.exact_before,
                                      exact_after=luck.exact_after))
            else:  # the move's own figure before the cards showed; the one after is not kept
                moments.append(Moment(m.ply, MomentKind.LUCK, before, before + m.luck, "", fact,
                                      samples=m.samples, before_interval=m.win_after_interval,
                                      swing_interval=m.luck_interval, exact_before=m.exact))
    moments.sort(key=lambda x: (-abs(x.swing), x.ply))
    # at one move, the error (the choice) comes before the luck (the cards it then turned up)
    return sorted(moments[:count], key=lambda x: (x.ply, x.kind != MomentKind.ERROR))
