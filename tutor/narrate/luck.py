"""The luck of the cards in the review's words: a move's luck sentence and a critical moment's luck row.

Luck is the swing in the win chance when cards turn up, with no choice made
(:mod:`tutor.review.luck`); each figure is said with its interval and the
deals it rests on.
"""

from __future__ import annotations

from ..estimate import interval_text
from ..review.facts import Luck, LuckMoment
from .figures import cards_shown as _shown
from .figures import deals as _deals
from .figures import points as _points
from .figures import signed as _signed
from .hint import pct


def _swing(before: float, after: float) -> int:
    """The swing as the two rounded figures beside it read (30% -> 56% is +26, not the unrounded +27)."""
    return int(pct(after)[:-1]) - int(pct(before)[:-1])


def _span(lo: float, hi: float) -> str:
    """A swing's interval in signed points, ``95%: +5 to +26``, or ``exact``."""
    return "exact" if abs(hi - lo) < 1e-9 else f"95%: {_signed(lo * 100)} to {_signed(hi * 100)}"


def luck_sentence(fact: Luck) -> str:
    """The cards' luck at a move: the two win chances, each with its interval and deals, and the swing with its
    own (paired where both figures are on the same deals)."""
    word = "good luck" if fact.swing > 0 else "bad luck"
    if not fact.deals:  # figures kept without their deals (an older review): the words as they were
        return (f"Luck, not a choice: the cards that turned up ({_shown(fact.seen, 8)}) moved the win chance from "
                f"{pct(fact.before)} to {pct(fact.after)} ({word}; {_luck_basis(fact)}).")
    swing = _swing(fact.before, fact.after)
    span = _span(*fact.interval)
    before = _luck_side(fact.before, fact.before_interval, fact.exact_before, fact.deals, fact.paired)
    after = (f"{pct(fact.after)} (the game was {fact.ended})" if fact.ended else
             _luck_side(fact.after, fact.after_interval, fact.exact_after, fact.deals_after, fact.paired))
    on = f" on the same {_deals(fact.deals)}" if fact.paired else ""
    apart = "" if fact.paired else "; the two figures are not on the same deals"
    return (f"Luck, not a choice: the cards that turned up ({_shown(fact.seen, 8)}) moved the win chance from "
            f"{before} to {after}{on}: {'+' if swing > 0 else '-' if swing < 0 else ''}{_points(abs(swing))} "
            f"({span}), {word}{apart}.")


def _luck_side(value: float, interval: tuple[float, float] | None, exact: bool, deals: int, paired: bool) -> str:
    """One figure of a luck sentence: ``39% (95%: 28-51%)`` (its deals named too when the sides differ),
    ``100% (exact, every one of the 6 consistent deals)``."""
    if exact:
        return f"{pct(value)} (exact, {'the one consistent deal' if deals == 1 else f'every one of the {deals} consistent deals'})"
    if interval is None:
        return pct(value) if paired else f"{pct(value)} ({_deals(deals)})"
    return f"{pct(value)} ({interval_text(*interval)}{'' if paired else f', {_deals(deals)}'})"


def _basis(deals: int, exact: bool, ended: str | None) -> str:
    """The deals one figure of a luck moment rests on: ``64 deals``, ``all 24 consistent deals``."""
    if ended:
        return "the game's result"
    if exact:
        return "the one consistent deal" if deals == 1 else f"all {deals} consistent deals"
    return _deals(deals)


def _luck_basis(fact: Luck) -> str:
    """On which deals the two figures of a luck sentence stand."""
    if fact.paired:
        return "the same deals before and after"
    if fact.exact_after:
        return "after them every consistent deal was solved, so the two figures are not on the same deals"
    return "the two figures are not on the same deals"


def luck_moment_text(fact: LuckMoment) -> str:
    """A critical moment of luck: ``luck: 2D turned up (+33 points, 95%: +20 to +44, 64 deals)``."""
    span = ""
    if fact.interval is not None:
        span = f", {_span(*fact.interval)}"
        luck = fact.basis
        if span != ", exact" and luck is not None and luck.deals:  # the deals it rests on
            span += (f", {_deals(luck.deals)}" if luck.paired else
                     f"; {_basis(luck.deals, luck.exact_before, None)} before, "
                     f"{_basis(luck.deals_after, luck.exact_after, luck.ended)} after")
    swing = _swing(fact.before, fact.before + fact.luck)
    sign = "+" if fact.luck > 0 else "-"
    return f"luck: {_shown(fact.seen, 6)} turned up ({sign}{_points(abs(swing))}{span})"
