"""The one tip table: strategy advice by id, shared by hints, the review, drills and lessons.

The tips restate the strategy advice of the rules text in our own words, one
entry per idea (:data:`TIPS`). A review tag names its tip by id through
:class:`TipId`; nothing else holds advice text.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any

__all__ = ["Tip", "TipId", "TIPS", "tip"]


class TipId(StrEnum):
    """The ids of :data:`TIPS` (the strings are the ids hints report in ``tips``)."""

    FIRST_ROW = "first-row"
    TRACK_RANKS = "track-ranks"
    WAIT_TO_OPEN = "wait-to-open"
    DIG_RESERVE = "dig-reserve"
    PLAN_PASSES = "plan-passes"
    FREE_TURN = "free-turn"
    WELL_PLAYED = "well-played"
    NO_PROGRESS = "no-progress"
    READ_RESERVE = "read-reserve"
    LAST_PASS = "last-pass"
    TURN_PAST = "turn-past"
    ROW_SUIT = "row-suit"


@dataclass(frozen=True, slots=True)
class Tip:
    """One piece of strategy advice: a short id, a title and the advice itself."""

    id: TipId
    title: str
    text: str
    known: str = ""
    """The advice where the player has seen every card, if it differs (no bet on the talon then)."""


_GROUPS = (" Turning three at a time, it shows on top then only if it falls at the end of a group of three, and "
           "every card played from before it in the talon moves it one place, so it may stay buried or come back "
           "where it did not before.")
"""The turn-past tip's words on groups of three: turning one card at a time, every card shows each pass."""

TIPS: dict[str, Tip] = {t.id: t for t in (
    Tip(TipId.FIRST_ROW, "Feed the first row",
        "Row 1 takes its suit in any order, and every rank it gets is a rank the rows below may "
        "take. Cards of row 1's suit come first: each one opens its rank to row 2, and through it, in "
        "turn, to the rows below."),
    Tip(TipId.TRACK_RANKS, "Know which ranks row 1 holds",
        "A card of a lower row waits until its rank is in every row above. Keep count of the ranks "
        "row 1 has and of those it lacks: until row 1 is complete, those ranks are stuck everywhere below."),
    Tip(TipId.WAIT_TO_OPEN, "Open a new row late, but not too late",
        "A starting-rank card of a new suit opens the next row, and that row only takes ranks the rows "
        "above already hold. Holding it back lets the rows above grow first, and one on a reserve pile "
        "keeps its place while you wait (one on the waste may not come back); but every pass you wait "
        "is a bet that the talon will still bring what you need.",  # said per variant by _wait_where
        "A starting-rank card of a new suit opens the next row, and that row only takes ranks the rows "
        "above already hold. With every card in view nothing is left to chance: count which cards each "
        "row will still get, and open the row when the rows above hold the ranks its cards need."),
    Tip(TipId.DIG_RESERVE, "Dig a reserve pile with a purpose",
        "A reserve card that goes to a row already open only adds options, so play it: it frees the card "
        "below it, and turns it up where the piles are dealt face down. But reaching a card is not worth "
        "opening a row in the wrong order."),
    Tip(TipId.PLAN_PASSES, "Plan the passes through the talon",
        "Turning three cards at a time, taking a card off the waste shifts the groups of three for the "
        "rest of the talon, so other cards show on the next pass. Before playing from the waste, think "
        "about which cards the next pass will then show, and which it will bury."),
    Tip(TipId.FREE_TURN, "A turn in step with the talon costs nothing",
        "With unlimited passes, once a card was played since the last redeal and the waste holds whole "
        "groups of turned cards, turning on loses nothing: you can come back to this very point next "
        "pass. In the first pass it also shows you cards you have not seen."),
    Tip(TipId.WELL_PLAYED, "Forty cards is a good game",
        "When a deal cannot be won, aim for the most cards on the foundations: a lost game with 40 or "
        "more counts as well played."),
    Tip(TipId.NO_PROGRESS, "Play a card every pass",
        "A whole pass through the talon with no card played blocks the game: the waste cannot be "
        "turned over again. Before ending a pass, play any card that helps, even a small one, so "
        "the next pass is still allowed."),
    Tip(TipId.LAST_PASS, "Take what you need on the last pass",
        "When the passes are limited, the last one is your last look at the talon: a card you turn past is "
        "buried under the next turn and may never come back, and taking a card off the waste shifts nothing, "
        "since no pass follows. On the last pass, take every card you will need while it shows."),
    Tip(TipId.TURN_PAST, "Turn past a playable card only for a reason",
        "A card you turn past goes under the cards turned after it and comes back only when they leave "
        "the waste, or on a later pass if one is left." + _GROUPS + " Let it go only "
        "when a pass still follows and nothing you need waits on it now."),
    Tip(TipId.ROW_SUIT, "Choose the suit that opens a row",
        "The order in which the suits open the rows holds for the whole game, and a row takes a rank only "
        "once every row above holds it. When starting-rank cards of two suits could open the next row, "
        "give it the suit whose cards you can reach soonest, leave the rows below to the suits whose "
        "cards come late or lie deep in the reserve piles, and check that the order leaves no reserve "
        "card waiting for one buried under it."),
    Tip(TipId.READ_RESERVE, "Read the reserve piles before opening a row",
        "A reserve card can only be played after the card above it, and a card of a lower row only after "
        "the same rank is in every row above. When a row order makes a card wait for one buried under it, "
        "neither can ever be played, and no waiting will help. Before a starting-rank card opens a row, check "
        "the reserve cards you can see: if the order it sets leaves such a trap, the game is lost at once."),
)}


_WAIT_WHERE = ", and one on a reserve pile keeps its place while you wait (one on the waste may not come back);"


def _wait_where(rules: Any, last: bool = False) -> str:
    """Where a held-back starting-rank card waits, as the variant's rules have it: no reserve in Bridesmaids,
    and turning one card at a time every talon card shows again each pass (spec section 5), but not after
    the last of limited passes (``last``)."""
    reserve = "one on a reserve pile keeps its place while you wait"
    waste = ("one on the waste may not come back, as no pass follows" if last else
             f"one on the waste may not come back, as the groups of {rules.turn} shift or bury it"
             if rules.turn > 1 else "")
    if rules.reserve_piles and waste:
        return f", and {reserve} ({waste});"
    if rules.reserve_piles:
        return f", and {reserve};"
    return f" ({waste});" if waste else ";"


#: The waiting tip's close, and its words on the last of limited passes (no later pass to wait for).
_BET = " but every pass you wait is a bet that the talon will still bring what you need."
_LAST_BET = " but this is the last pass: waiting pays only if the cards the rows above need still show in it."


def tip(tip_id: str, known: bool = False, rules: Any = None, last: bool = False) -> str:
    """A tip for the player, its title a sentence of its own: "Title. Advice" (``known``: the player had seen
    every card; ``rules``: the variant, where the advice differs by it; ``last``: on the last of limited
    passes)."""
    found = TIPS[str(tip_id)]
    text = found.known if known and found.known else found.text
    if rules is not None and _WAIT_WHERE in text:
        text = text.replace(_WAIT_WHERE, _wait_where(rules, last))
        if last:
            text = text.replace(_BET, _LAST_BET)
    if rules is not None and rules.turn == 1:
        text = text.replace(_GROUPS, " Turning one card at a time, every card shows on top again in each pass.")
    return f"{found.title}. {text}"
