"""The drills' own words: a drill's heading, what its first words say the move cost, when it is due.

The tables and the coach's words are :mod:`.history_render`'s; these are the drill session's.
"""

from __future__ import annotations

from rich.text import Text

from ..textsafe import clean
from .history_render import _ends, _plural, deal_label, variant_label


def drill_head(d, game, total: int, index: int) -> Text:
    text = Text()
    text.append(f"Drill {index} of {total}", style="bold")
    # "game id": the history's number (coach's and history's), not the list number of osmosis games
    text.append(f": deal {deal_label(game.deal_number)} ({variant_label(game.variant)}), game id {game.id}, "
                f"before move {d.ply}.")
    return text


def drop_basis(fig) -> str:
    """What a stored drop rests on (a :class:`tutor.history.drill.DropFigure`), as the review says it: ``95%:
    12-25, 128 deals``, ``exact``; a sampled figure whose interval or deals were not kept says so."""
    if fig.exact:
        return "exact: every consistent deal solved"
    if fig.interval is not None and fig.samples is not None:
        return f"95%: {_ends(*fig.interval)}, {_plural(fig.samples, 'deal')}"
    if fig.interval is not None:
        return f"sampled, 95%: {_ends(*fig.interval)}; the number of deals was not kept"
    if fig.samples is not None:
        return f"sampled on {_plural(fig.samples, 'deal')}; its interval was not kept"
    return "a sampled figure; its interval and number of deals were not kept"


def drill_intro(d, seen: int, unseen: int, fig=None) -> str:
    """The drill's first words: the move played then and what it cost (with what that figure rests on)."""
    basis = f"{clean(d.label)}; {drop_basis(fig)}" if fig is not None else clean(d.label)
    return (f"In that game you played {clean(d.played)} here and lost {d.drop:.0f} win points ({basis}). "
            f"You had seen {seen} cards; {unseen} were still face down.")


def when_text(seconds: float) -> str:
    """``now``, ``in under a minute``, ``in 1 minute``, ``in 10 minutes``, ``in 1 hour``, ``in 3 days``.

    "now" only when it is due (``drill`` asks it): a drill due in 40 seconds said "due now" and was then
    not asked."""
    if seconds <= 0:
        return "now"
    if seconds < 60:
        return "in under a minute"
    minutes = round(seconds / 60)
    if minutes < 60:
        return f"in {_plural(minutes, 'minute')}"
    hours = round(seconds / 3600)
    if seconds < 86400 * 1.5:
        return f"in {_plural(hours, 'hour')}"
    return f"in {_plural(round(seconds / 86400), 'day')}"
