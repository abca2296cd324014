"""The words of a game at the terminal that are not about one move: how the game ended.

The move played is spelt by :mod:`.moves` (:func:`~.moves.move_heading`);
here are the sentences built from the end position's facts, for line mode,
the board and the replay alike.
"""

from __future__ import annotations

from ..state import State

__all__ = ["WELL_PLAYED", "end_message", "why_blocked", "plural"]

WELL_PLAYED = 40  # cards on the foundations that count as a game well played


def plural(n: int, word: str) -> str:
    """``1 card``, ``3 cards``."""
    return f"{n} {word}{'' if n == 1 else 's'}"


def end_message(state: State) -> str:
    """The result in words: won, or blocked with the score and why."""
    if state.won:
        return "Won! All 52 cards are on the foundations."
    text = f"Blocked: {plural(state.score, 'card')} on the foundations ({why_blocked(state)})."
    if state.score >= WELL_PLAYED:
        text += f" Not a win, but {WELL_PLAYED} or more cards counts as well played."
    return text


def why_blocked(state: State) -> str:
    """Why no move is left in a blocked game, from what every player sees (the talon, the passes)."""
    passes = state.rules.passes
    if not state.talon:
        return "no card can be played and the talon is used up"
    if passes and state.pass_no >= passes:
        if passes == 1:
            return "no card can be played and the one pass through the talon is used"
        return f"no card can be played and all {passes} passes through the talon are used"
    return "a whole pass through the talon went by without a card played"
