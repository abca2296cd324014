"""The hint's reason when the information-set search, not the samples' figures, chose the move.

The samples solve each deal with every card known, so a move whose lead
needs the face-down cards known can tie or lead there (strategy fusion).
Where the search over the cards that can still turn up overturned that
figure, the reason says so with the search's own figures and the deals
they rest on, instead of "they score the same" beside a choice the
figures shown do not explain.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from ..estimate import interval_text, wilson
from .moves import move_phrase

if TYPE_CHECKING:
    from ..hints import Candidate, ScoredPosition
    from ..knowledge import Observation


def _pct(x: float) -> str:
    return f"{x * 100:.0f}%"


def blind_interval(blind: float, win: float, scored: int, searched: int, exact: bool) -> tuple[float, float]:
    """The 95% interval of a search's blind win chance ``blind`` (one value when ``exact``).

    ``win``: the move's sampler share on the ``scored`` deals; ``searched``: the deals the search played.
    Where it played all of them, each ends won or lost along the line it chooses, so its value is a share:
    a Wilson interval. Where it played only the first ``searched``, the value is the sampler's share ``p``
    on all less the fusion ``q`` found on those (:func:`tutor.infoset.corrected`): each gets its Wilson
    interval and their ends are added in squares (Newcombe's way, the covariance left out, which only
    widens it), so no fusion found on 32 deals still leaves room for up to 11 points of it.

    Pass ``blind`` before its clamp to 0..1 (:attr:`tutor.infoset.BlindValues.raw`): a figure clamped at 0
    would leave out the fusion found beyond the share, and its interval would be wider than the search's
    finding. The ends are clamped to 0..1 and always hold the figure shown (the clamped value): a value far
    below 0 would else give an interval that ends below its own 0%.
    Display only: not part of any engine version (the tutor chooses by the values, not their intervals).
    """
    shown = min(1.0, max(0.0, blind))
    if exact or searched <= 0:
        return shown, shown
    if searched >= scored:
        return wilson(round(shown * searched), searched)
    p, q = win, max(0.0, win - blind)
    lp, up = wilson(round(p * scored), scored)
    lq, uq = wilson(round(q * searched), searched)
    lo = blind - math.hypot(p - lp, uq - q)
    hi = blind + math.hypot(up - p, q - lq)
    return max(0.0, min(lo, shown)), min(1.0, max(hi, shown))


def blind_figure(blind: float, interval: tuple[float, float], exact: bool) -> str:
    """A blind win chance with its interval, "22% (95%: 11-39%)"; "22%" alone when exact."""
    return _pct(blind) if exact else f"{_pct(blind)} ({interval_text(*interval)})"


def blind_apart(mine: float, mine_interval: tuple[float, float], theirs: float,
                theirs_interval: tuple[float, float]) -> bool:
    """``mine`` above ``theirs`` beyond their noise: the gap above 1.96 standard errors of a difference of two
    independent estimates (each read from its interval's half-width; on the same deals the two are
    correlated, so this is the cautious side)."""
    return mine - theirs > math.hypot((mine_interval[1] - mine_interval[0]) / 2,
                                      (theirs_interval[1] - theirs_interval[0]) / 2)


def _interval(c: Candidate, searched: int, exact: bool) -> tuple[float, float]:
    """``c``'s blind interval: the hint's own (centred before the clamp to 0..1), else worked out from the figure."""
    assert c.blind is not None
    if c.blind_interval is not None:
        return c.blind_interval
    return blind_interval(c.blind, c.win, c.samples, searched, exact)


def _figure(c: Candidate, searched: int, exact: bool) -> str:
    assert c.blind is not None
    return blind_figure(c.blind, _interval(c, searched, exact), exact)


def overturned(scored: ScoredPosition, top: Candidate) -> Candidate | None:
    """The move the samples' figures favour or tie with, that the search put below the best; None if none."""
    if top.blind is None or str(scored.method) not in ("infoset", "exact"):
        return None
    rivals = [c for c in scored.candidates if c.move != top.move and c.blind is not None and not c.lost
              and round(c.win * 100) >= round(top.win * 100)]
    rival = max(rivals, key=lambda c: (c.win, c.blind or 0.0), default=None)
    if rival is None or rival.blind is None or round(rival.blind * 100) >= round(top.blind * 100):
        return None
    return rival


def drawn_deals(obs: Observation, budget: int | None = None) -> int:
    """The deals a hint with ``budget`` samples draws: every consistent one when few
    (:func:`tutor.hints.exact_worlds`), else its budget."""
    from ..hints import DEFAULT_SAMPLES, EXACT_DEALS

    budget = budget or DEFAULT_SAMPLES
    deals = obs.consistent_deals()
    return deals if deals <= max(budget, EXACT_DEALS) else budget


def search_count(drawn: int) -> int:
    """How many of ``drawn`` deals the information-set search plays (:func:`tutor.infoset.hint_values`)."""
    from ..hints import EXACT_DEALS
    from ..infoset import WORLDS

    return drawn if drawn <= EXACT_DEALS else min(WORLDS, drawn)


def searched_deals(scored: int, drawn: int) -> str:
    """The deals the search played, against the ``scored`` ones behind the figures: ``32 of the 64 deals``.

    ``drawn``: the deals the hint drew (:func:`drawn_deals`; the review scores all it draws). The search
    plays every drawn deal up to :data:`tutor.hints.EXACT_DEALS`, else the first
    :data:`tutor.infoset.WORLDS`, which are among the first scored.
    """
    searched = search_count(drawn)
    if searched == scored:
        return f"the {scored} deals"
    if searched < scored:
        return f"{searched} of the {scored} deals"
    return f"{searched} deals drawn from what you have seen ({scored} of them scored above)"


def fusion_reason(obs: Observation, scored: ScoredPosition, top: Candidate, what: str,
                  budget: int | None = None) -> str | None:
    """``what`` (the best move's phrase) with why the search chose it over a move the figures favour; None
    when the search did not overturn the figures. ``budget``: the samples the hint could draw."""
    rival = overturned(scored, top)
    if rival is None or top.blind is None or rival.blind is None:
        return None
    other = move_phrase(obs, rival.move, False)
    # "more often" only where the paired drop says so (the rival surely ahead), else the figures as they are
    drop = rival.drop
    ahead = drop is not None and (drop.estimate < 0 if drop.exact else drop.hi < 0)
    how = ("as often" if round(rival.win * 100) == round(top.win * 100)
           else "more often" if ahead else "about as often")
    exact = str(scored.method) == "exact"
    drawn = drawn_deals(obs, budget)
    searched = search_count(drawn)
    if exact:
        basis = f"exact: every one of the {scored.samples} consistent deals searched"
    else:
        basis = f"the search's estimate on {searched_deals(scored.samples, drawn)}"
    assert top.blind is not None and rival.blind is not None
    mine, theirs = _interval(top, searched, exact), _interval(rival, searched, exact)
    sure = exact or blind_apart(top.blind, mine, rival.blind, theirs)
    return (f"{what}. If you {other}, the deals solved with every card known win {how} ({_pct(rival.win)} "
            f"against {_pct(top.win)}), but a player who sees only the table {'cannot' if sure else 'may not'} "
            f"cash that: searched over the cards that can still turn up ({basis}), such a player wins about "
            f"{_figure(top, searched, exact)} this way and {_figure(rival, searched, exact)} if you {other}"
            f"{'' if sure else ', a lead within the noise of the search'}.")
