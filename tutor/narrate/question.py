"""The ``--tutor`` question before a move: a win chance surely below the best's, or a sure loss of cards
where no move wins or the win chance is surely lower too. One rule and one wording for line mode and the board (and the review's list of cards
given away reads :func:`surely_fewer_cards`)."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Protocol

from ..sampling import BANDS
from .hint import cards_span, pct, win_figure
from .play import plural

if TYPE_CHECKING:
    from ..estimate import Drop
    from ..hints import Candidate, Hint
    from ..notation import Move

__all__ = ["CARDS_WARNING", "cards_warning", "doubt_warning", "surely_fewer_cards", "tutor_question", "tutor_warning"]


def tutor_warning(advice: Hint, move: Move, best_words: str) -> str | None:
    """The ``--tutor`` question's text when ``move`` is clearly worse (``advice.warns`` decided), else None.

    ``best_words`` names the best move as the caller shows moves.
    """
    best, mine = _best_and(advice, move)
    if best is None or mine is None:
        return None
    if advice.exact:
        return (f"That would be {_kind(mine.drop, True)}: win {pct(mine.win)} against {pct(best.win)} for "
                f"{best_words}, exact: every consistent deal solved.")
    return (f"That may be {_kind(mine.drop, False)}: win {win_figure(mine)} against {win_figure(best)} for "
            f"{best_words}, on {mine.samples} deal{'s' if mine.samples != 1 else ''}.")


def _best_and(advice: Hint, move: Move) -> tuple[Candidate | None, Candidate | None]:
    """The hint's candidates for its best move and for ``move`` (None where it scored no such move)."""
    by_move = {c.move: c for c in advice.candidates}
    return by_move.get(advice.best), by_move.get(move)


def _kind(drop: Drop | None, exact: bool) -> str:
    """The review's label for a drop (its bands, :data:`tutor.sampling.BANDS`), by the low end of its interval
    as the review's label goes (the value itself when exact): the question called every such move "a mistake",
    a drop of 8 points that the review labels an inaccuracy too."""
    if drop is None:
        return "a weaker move"
    est, lo, _ = drop.points()
    at = est if exact or drop.exact else lo
    return ("a blunder" if at >= BANDS[2] else "a mistake" if at >= BANDS[1] else "an inaccuracy" if at >= BANDS[0]
            else "a weaker move")


CARDS_WARNING = 3.0
"""In a position no move wins in any deal scored, ``--tutor`` asks before a move that places at least this
many cards fewer than the best, when the two moves' 95% intervals for the cards lie apart (or are exact)."""


class CardsFigured(Protocol):
    """A scored move's cards as the cards rule reads them: a hint's candidate or a review's."""

    @property
    def cards(self) -> float: ...
    @property
    def cards_interval(self) -> tuple[float, float]: ...


def surely_fewer_cards(best: CardsFigured, mine: CardsFigured, exact: bool) -> bool:
    """Whether ``mine`` places :data:`CARDS_WARNING` or more cards fewer than ``best`` for sure: exact, or
    their 95% intervals for the cards apart. The rule of the ``--tutor`` question and of the review's list."""
    if best.cards - mine.cards < CARDS_WARNING:
        return False
    return exact or mine.cards_interval[1] < best.cards_interval[0]


def tutor_question(advice: Hint, move: Move, threshold: float, best_words: str) -> str | None:
    """The ``--tutor`` question before ``move``, or None: a win chance surely ``threshold`` points or more
    below the best's, or else, where no move wins in any deal, a sure loss of cards (:data:`CARDS_WARNING`)."""
    if move == advice.best:
        return None
    drop = advice.candidate(move).drop
    if advice.warns(move, threshold) and drop is not None and drop.lo > 0:  # a drop of 0 is no mistake, at 0 too
        return tutor_warning(advice, move, best_words)
    cards = cards_warning(advice, move, best_words)  # a sure loss of cards says more than a doubt
    if cards is None and drop is not None and not (advice.exact or drop.exact) and drop.lo > 0 and \
            drop.estimate * 100 >= threshold:
        # the drop is real and most likely past the threshold, but the hint's deals cannot say so for sure
        return doubt_warning(advice, move, best_words, threshold)
    return cards


def doubt_warning(advice: Hint, move: Move, best_words: str, threshold: float) -> str | None:
    """The question where ``move``'s drop is surely above zero and its estimate at ``threshold`` points or more,
    but the low end of its interval is not: asked with the figures and the doubt, not a label. A hint stopped
    early by its work budget (63 deals) let a beginner's early row opening through without a word, which the
    review, on 512 deals, then called a mistake of 17 points (13-21)."""
    best, mine = _best_and(advice, move)
    if best is None or mine is None or mine.drop is None:
        return None
    est, lo, hi = mine.drop.points()
    # the interval rounded outwards: a low end of 9.7 read "10" beside "too few to be sure it is 10 points or more"
    return (f"That looks weaker than {best_words}: win {win_figure(mine)} against {win_figure(best)}, about "
            f"{est:.0f} points less (95%: {math.floor(lo)}-{math.ceil(hi)}) on {mine.samples} deal{'s' if mine.samples != 1 else ''}, "
            f"too few to be sure it is {threshold:g} points or more.")


def cards_warning(advice: Hint, move: Move, best_words: str) -> str | None:
    """The question when ``move`` surely places :data:`CARDS_WARNING` or more cards fewer than the best move,
    where every move lost in every deal scored (none undecided), or where ``move`` also wins surely less
    (its paired drop above 0, if under the player's threshold: a turn that blocks the game at once, say,
    when a play keeps a small chance and many more cards); else None."""
    best, mine = _best_and(advice, move)
    if best is None or mine is None or not surely_fewer_cards(best, mine, advice.exact):
        return None
    if any(c.win > 0 or c.undecided for c in advice.candidates):
        # lost in every consistent deal, the move wins surely less where the best's own interval is above 0
        # (its paired interval, a normal one, can reach below 0 on a few won deals)
        surely = (mine.drop is not None and mine.drop.lo > 0) or (mine.lost and best.interval[0] > 0)
        if not surely:
            return None  # no surer loss of the win chance: the cards are the price of it, or a tie
        win = (f"win {pct(mine.win)} against {pct(best.win)} for {best_words}, exact" if advice.exact else
               f"win {win_figure(mine)} against {win_figure(best)} for {best_words}")
        cards = (f"{best.cards:.0f} cards against {mine.cards:.0f}" if advice.exact else
                 f"about {best.cards:.0f} cards {cards_span(*best.cards_interval, True)} against {mine.cards:.0f} "
                 f"{cards_span(*mine.cards_interval)}")
        return (f"That gives cards away and lowers your chance: {win}, which places {cards} after this move, on "
                f"{plural(best.samples, 'deal')} consistent with what you have seen"
                f"{' (all solved)' if advice.exact else ''}.")
    settled = getattr(advice, "deals", 0)  # a settled hint (tutor.advice): every consistent deal solved for the win
    if advice.exact:
        n = best.samples
        return (f"That gives cards away: no move wins in {'the one deal' if n == 1 else f'any of the {n} deals'} "
                f"consistent with what you have seen ({'solved' if n == 1 else 'all solved'}), and {best_words} places "
                f"{best.cards:.0f} cards against {mine.cards:.0f} after this move.")
    where = (_any_of(settled, "consistent with what you have seen (all solved)") if settled
             else _any_of(best.samples, "sampled from what you have seen"))
    cards = (f"about {best.cards:.0f} cards {cards_span(*best.cards_interval, True)} against "
             f"{mine.cards:.0f} {cards_span(*mine.cards_interval)} after this move")
    return (f"That gives cards away: no move wins in {where}, and {best_words} places {cards}"
            f"{', on ' + plural(best.samples, 'sampled deal') if settled else ''}.")


def _any_of(n: int, which: str) -> str:
    """``any of the 32 deals sampled ...``, or ``the one deal sampled ...``."""
    return f"the one deal {which}" if n == 1 else f"any of the {n} deals {which}"
