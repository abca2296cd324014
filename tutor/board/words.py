"""Sentences the board says as line mode says them (no Textual here, so line mode could import them too)."""

from __future__ import annotations

from collections.abc import Sequence

# why a run of t stopped (tutor.talon.turns_to_play's ``why``), as the end of the sentence after it
TURNED_UNTIL = {"playable": "the waste shows a card that can be played",
                "redeal": "the stock is empty (d redeals)", "blocked": "no turn is possible"}


def turned_sentence(first: int, last: int, why: str) -> str:
    """After ``t`` played moves ``first``..``last``: ``Moves 9-17: turned the talon 9 times, until ...``.

    The words of line mode's ``t`` (:meth:`tutor.cli.session.Session.turn_until`).
    """
    turned = last - first + 1
    span = f"Move {first}" if turned == 1 else f"Moves {first}-{last}"
    return f"{span}: turned the talon {'once' if turned == 1 else f'{turned} times'}, until {TURNED_UNTIL[why]}."


def not_played(rest: Sequence[str]) -> str:
    """A move the tutor's question kept back, and the rest of its line with it, as line mode says it."""
    return "Move not played." + (f" Nor the rest of the line: {' '.join(rest)}." if rest else "")


def over_rest(rest: Sequence[str]) -> str:
    """The words of a line left when its game ended, as line mode says them."""
    return f"Not played, since the game is over: {' '.join(rest)}."
