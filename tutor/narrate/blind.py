"""The hint's reason when the information-set search, not the samples' figures, chose the move.

The samples solve each deal with every card known, so a move whose lead
needs the face-down cards known can tie or lead there (strategy fusion).
Where the search over the cards that can still turn up overturned that
figure, the reason says so with the search's own figures and the deals
they rest on, instead of "they score the same" beside a choice the
figures shown do not explain.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .moves import move_phrase

if TYPE_CHECKING:
    from ..hints import Candidate, ScoredPosition
    from ..knowledge import Observation


def _pct(x: float) -> str:
    return f"{x * 100:.0f}%"


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
    how = "as often" if round(rival.win * 100) == round(top.win * 100) else "more often"
    if str(scored.method) == "exact":
        basis = f"exact: every one of the {scored.samples} consistent deals searched"
    else:
        basis = f"the search's estimate on {searched_deals(scored.samples, drawn_deals(obs, budget))}"
    return (f"{what}. If you {other}, the deals solved with every card known win {how} ({_pct(rival.win)} "
            f"against {_pct(top.win)}), but a player who sees only the table cannot cash that: searched over the "
            f"cards that can still turn up, such a player wins about {_pct(top.blind)} this way and {_pct(rival.blind)} if "
            f"you {other} ({basis}).")
