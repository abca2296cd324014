"""Luck: the swing in the win chance when cards turn up, with no choice made (never charged to the player).

When a turn or a reserve card shows new cards, the position's value on the
same deals moves before and after the cards showed: that change is the luck
of the cards that turned up.
"""

from __future__ import annotations

import math

from ..estimate import paired_drop, wilson
from ..grading import PlyScore
from ..knowledge import seen_cards
from ..state import State
from .facts import Luck
from .grades import Thresholds

__all__ = ["luck_of"]


def _side(won: tuple[bool, ...], exact: bool) -> tuple[float, float]:
    """One side's win share as an interval: its 95% Wilson interval where it was sampled, itself where exact."""
    share = sum(won) / max(1, len(won))
    return (share, share) if exact or not won else wilson(sum(won), len(won))


def luck_of(states: list[State], scores: dict[int, PlyScore], final: State, th: Thresholds) -> dict[int, Luck]:
    """0-based ply -> the luck of the cards that turned up after that move, where it was clear.

    Luck is the change in the position's value between the played move (on
    the deals before the cards showed) and the next position (the same deals,
    repaired where the new cards contradicted them), deal by deal. It is
    called out when new cards were seen, it reaches ``th.luck`` points, and
    its paired 95% interval excludes zero. At an exact position the deals are
    all the consistent ones, not the shared ones, so the two sides are not
    paired: there the interval is the sampled side's.
    """
    out: dict[int, Luck] = {}
    for i in range(len(states) - 1):
        here = scores[i]
        nxt = scores.get(i + 1)
        new = sorted(seen_cards(states[i + 1]) - seen_cards(states[i]))
        if not new:
            continue
        value_next: tuple[bool, ...]
        ended = None
        if nxt is None:
            if not final.over:
                continue
            value_next = (final.won,) * max(1, len(here.after))
            exact_next = True
            ended = "won" if final.won else "blocked"
        else:
            value_next, exact_next = tuple(nxt.value), nxt.every or nxt.exact
        before = sum(here.after) / max(1, len(here.after))
        after = sum(value_next) / max(1, len(value_next))
        swing = after - before
        here_every = here.every or here.exact  # every consistent deal (a win undecided there counts as lost)
        paired = not (here_every or exact_next or len(value_next) != len(here.after))
        # each side's own interval, as it lies (Wilson's is lopsided near 0 and 1)
        (b_lo, b_hi), (a_lo, a_hi) = (_side(tuple(here.after), here_every), _side(value_next, exact_next))
        if not paired:
            # Not the same deals on both sides: the sampled sides' own uncertainty, unpaired (0 of 1 deal is
            # 0-79%, and its half-width put around the estimate read a swing of 0% -> 40% on one deal as "0 to
            # +80", clear of zero)
            lo = swing - math.hypot(after - a_lo, b_hi - before)
            hi = swing + math.hypot(a_hi - after, before - b_lo)
        else:
            d = paired_drop(value_next, here.after)
            lo, hi = d.lo, d.hi
        if abs(swing) * 100 < th.luck or lo <= 0 <= hi:
            continue
        out[i] = Luck(tuple(new), before, after, (lo, hi), paired, exact_next, len(here.after), len(value_next),
                      (b_lo, b_hi), (a_lo, a_hi), here_every, ended)
    return out
