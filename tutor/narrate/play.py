"""The words of a game at the terminal that are not about one move: how the game ended.

The move played is spelt by :mod:`.moves` (:func:`~.moves.move_heading`);
here are the sentences built from the end position's facts, for line mode,
the board and the replay alike.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..state import State
from ..talon import passes_used
from ..textsafe import tame

__all__ = ["HELP", "help_text", "pile_keys", "WELL_PLAYED", "end_message", "why_blocked", "plural", "turned_sentence", "not_played", "over_rest", "stopped_sentence"]

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
        return f"no card can be played and {passes_used(passes)}"
    return "a whole pass through the talon went by without a card played"


def none_shown(turn: int, what: str = "none of the cards still to turn", known: str = "all of them known",
               verb: str = "could be played") -> str:
    """``none of the cards still to turn (all of them known) could be played``, said right for the turn: turning
    three at a time only every third card shows on the waste, so the others can be playable and still never
    come to be played (a card under the top of its group waits for that top to be played)."""
    if turn == 1:
        return f"{what} ({known}) {verb}"
    return (f"{what} ({known}) that would show on top of the waste {verb} (turning {turn} at a time, the cards "
            f"under each top wait for it to be played)")


# why a run of t stopped (tutor.talon.turns_to_play's ``why``), as the end of the sentence after it
TURNED_UNTIL = {"playable": "the waste shows a card that can be played",
                "redeal": "the stock is empty (d redeals)", "blocked": "no turn is possible",
                "ends": "turning on would end the game: none of the cards still to turn can come to be played (d turns anyway)",
                "last-turn": "the next turn empties the stock with no redeal to follow, which may end the game (d takes it)"}


def turned_sentence(first: int, last: int, why: str | None) -> str:
    """After ``t`` played moves ``first``..``last``: ``Moves 9-17: turned the talon 9 times, until ...``
    (``why`` None: the tutor's question kept the rest of the run back, so it never got there).

    The words of ``t`` in line mode and on the board alike.
    """
    turned = last - first + 1
    span = f"Move {first}" if turned == 1 else f"Moves {first}-{last}"
    until = f"until {TURNED_UNTIL[why]}" if why is not None else "until the tutor's question"
    return f"{span}: turned the talon {'once' if turned == 1 else f'{turned} times'}, {until}."


def _words(rest: Sequence[str], most: int = 12) -> str:
    """The first ``most`` words of a line's rest, and how many more: a long piped line stays a readable line."""
    return tame(" ".join(rest[:most]), 40) + (f" ... ({len(rest) - most} more)" if len(rest) > most else "")


def not_played(rest: Sequence[str], turns: bool = False) -> str:
    """A move the tutor's question kept back, and the rest of its line with it. ``turns``: the move was one of
    ``t``'s run, worked out on the cards still face down: how many turns were left is not said."""
    if turns:
        return "Move not played, nor the rest of t's turns."
    return "Move not played." + (f" Nor the rest of the line: {_words(rest)}." if rest else "")


def over_rest(rest: Sequence[str]) -> str:
    """The words of a line left when its game ended."""
    return f"Not played, since the game is over: {_words(rest)}."


HELP = """\
Moves:  r1-r4  play the top card of a reserve pile
        w      play the waste's top card
        d      turn the talon (a redeal when the stock is empty)
        t      turn until the waste shows a card that can be played
        7h     a card name (also 10h, 7♥) plays that card
        Several moves on one line are played in turn: d d w (or d, d, w)
Other:  u      undo the last move (u 3: the last three)
        h      hint: every move with its chance to win, and why
        s      save the game (s FILE: save it to FILE)
        q      quit (the game stays saved)
        ?      this help; an empty line shows the position again"""


def pile_keys(piles: int, prefix: str = "r") -> str | None:
    """The reserve piles' moves or keys of a game with ``piles`` piles: ``r1-r4``, ``r1-r2``, ``r1``; None
    with no reserve (Bridesmaids)."""
    if piles <= 0:
        return None
    return f"{prefix}1" if piles == 1 else f"{prefix}1-{prefix}{piles}" if prefix else f"1-{piles}"


def help_text(piles: int) -> str:
    """:data:`HELP` for a game with ``piles`` reserve piles: only the reserve moves it has (none in
    Bridesmaids, where ``r1`` would be refused)."""
    keys = pile_keys(piles)
    if keys is None:
        first, second, *rest = HELP.splitlines()
        return "\n".join(["Moves:  " + second.strip(), *rest])
    return HELP.replace("r1-r4 ", f"{keys:<6}", 1)


def stopped_sentence(ply: int, left: int) -> str:
    """Ctrl-C while a typed line was played: where it stopped, and how many of its moves were left (0: none,
    or a ``t`` run, whose length was worked out on face-down cards and is not said)."""
    return f"Stopped (Ctrl-C) at move {ply}" + (f": {left} more of the line not played." if left else ".")
