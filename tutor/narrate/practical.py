"""The practical win chance of an error in words: the tutor's own blind play, played out (``--practical N``)."""

from __future__ import annotations

from ..estimate import Estimate, interval_text
from ..notation import Move
from ..practical import won_count
from ..review.facts import Practical
from ..state import State
from .moves import move_named

__all__ = ["PRACTICAL_HEADING", "practical_sentence"]

#: The heading of the review's block of practical win chances (``--practical N``).
PRACTICAL_HEADING = "Practical win chance at the errors (the tutor playing blind)"


def practical_sentence(state: State, fact: Practical) -> str:
    """The practical win chances of an error in one sentence: the tutor's blind play on deals consistent with
    what the player had seen, after the move played and after the best move, each with its interval."""
    n = fact.games
    if fact.exact:
        where = (f"on all {n} deals consistent with what you had seen (exact)" if n > 1
                 else "on the one deal consistent with what you had seen (exact)")
    else:
        where = f"on {n} deal{'' if n == 1 else 's'} consistent with what you had seen"

    def figure(est: Estimate, move: Move, your: bool) -> str:
        if fact.exact:
            span = ""
        elif est.win_hi == 0.0:  # a sampled (Wilson) interval never closes on 0: the move loses for certain
            span = " (it loses in every consistent deal)"
        else:
            span = f" ({interval_text(est.win_lo, est.win_hi)})"
        return (f"{won_count(est)} of {est.samples}{' won' if your else ''}{span} after {'your ' if your else ''}"
                f"{move_named(state, move)}")

    return (f"Played out blind by the tutor {where}: {figure(fact.played, fact.move, True)}, "
            f"{figure(fact.top, fact.best, False)}.")
