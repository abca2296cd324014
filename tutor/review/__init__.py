"""Post-game review: a grade for every move, tags that name the error, hindsight.

The review does for an Osmosis game what GNU Backgammon's analysis and
Lichess's game review do for theirs. This package holds the analysis, as
values: the words a player reads are built from its facts by
:mod:`tutor.narrate.review`.

- :mod:`.grades`: labels, thresholds, accuracy;
- :mod:`.facts`: the tags and moment kinds (enums) and the facts a comment is built from;
- :mod:`.values`: :class:`MoveReview`, :class:`Hindsight`, :class:`Moment`, :class:`Review`;
- :mod:`.tags`: the kind of error a move shows; :mod:`.luck`: the cards' luck;
  :mod:`.moments`: the critical moments; :mod:`.full_knowledge`: hindsight;
- :mod:`.analysis`: :func:`analyse` (the facts of a game) and :func:`review` (those facts, then
  their words from :mod:`tutor.narrate.review`).

**Grades use only what the player knew.** Every position is scored on deals
consistent with what the player had seen there (:mod:`tutor.grading`: the
hint machinery, on sampled deals shared through the game and repaired only
where a card turned up), so a move is never blamed for a card the player
could not see. The *win chance* of a move is its estimated chance to win
after it, with its samples and 95% interval; the *drop* of a played move is
the best move's win chance minus the played move's, on the same deals.

**Labels only when they are real.** A move is an inaccuracy, mistake or
blunder only when the lower end of its drop's 95% interval reaches the
threshold (see :meth:`Thresholds.grade`); otherwise it is best or good, and
``close`` when the interval still reaches an error band. While a label is
in doubt, more deals are drawn for it (up to :data:`tutor.grading.LABEL_BUDGET`).

**Luck is not an error.** When a turn or a reserve card shows new cards, the
win chance moves with no choice made: that change (the position's value on
the same deals, before and after the cards showed) is the luck of the cards
that turned up, reported as such and never charged to the player.

**Hindsight is labelled as such.** With every card known (the true deal) the
solver says whether the deal was winnable at the start, at which move it
stopped being winnable (``lost_at_ply``) and, when it was lost from the
start, the cycle of needs that explains why.

**Accuracy** is Lichess's (:mod:`.grades`). Forced moves (one legal move),
free plays (a card that opens no row and can only add options, spec
section 5) and moves in a position already lost (every consistent deal
solved, and no legal move wins in any of them) are labelled
``best`` and left out, as gnubg and Lichess leave out forced moves.
"""

from __future__ import annotations

from typing import Any

from ..knowledge import seen_cards
from .analysis import DEFAULT_SAMPLES, analyse, review, score_position
from .facts import Candidate, Comment, MomentKind, Tag
from .full_knowledge import hindsight
from .grades import DEFAULT_THRESHOLDS, Label, Thresholds, game_accuracy, move_accuracy
from .values import Hindsight, Moment, MoveReview, Review, annotate_record

__all__ = [
    "Label", "Thresholds", "DEFAULT_THRESHOLDS", "DEFAULT_SAMPLES", "MoveReview", "Hindsight",
    "Moment", "Review", "review", "analyse", "hindsight", "move_accuracy", "game_accuracy", "TAGS",
    "annotate_record", "tip", "Tag", "MomentKind", "Candidate", "Comment", "score_position", "seen_cards",
]


def __getattr__(name: str) -> Any:
    """``TAGS`` (tag -> tip id and meaning) and ``tip`` are words: they live in :mod:`tutor.narrate`."""
    if name == "TAGS":
        from ..narrate.review import TAGS

        return TAGS
    if name == "tip":
        from ..narrate.tips import tip

        return tip
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
