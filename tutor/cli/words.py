"""What a player types as moves: the ``--moves`` option of solve and hint, and the words of a typed line.

A word that is no move or card at all is refused before any move is played,
with the moves of the game's own rules (its reserve piles) as what would be
right. Line-mode play, the board's prompt, drills and lessons read words alike.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import click

from ..cards import NAMES
from ..errors import IllegalMoveError, MoveError
from ..notation import Move, parse_input
from ..state import State
from ..talon import why_illegal
from ..textsafe import quoted, utf8_argument

#: How to save to a file of one's own, in line mode; on the board, where space is a key, the : box comes first.
SAVE_TO_A_FILE = "type s and a file name, like s game.json"
SAVE_ON_THE_BOARD = "press : and " + SAVE_TO_A_FILE


def follow(state: State, words: Iterable[str] | None) -> tuple[list[State], list[Move]]:
    """``state`` and the position after each of ``--moves`` (:class:`MovesType`'s words), and the moves.

    Every word is read first, with the moves of this game's rules (its reserve piles) as what would be right:
    a word that is no move or card at all is refused before any move is played. A card names the move that
    plays it, as in play. A card right after the move that played it is that move's label (``solve``'s line
    reads ``r2 QS d``), so a line printed by ``solve`` pastes back as it is. An illegal move or card names its
    place in the list.
    """
    from ..knowledge import move_for_card

    piles = state.rules.reserve_piles
    words = list(words or [])
    long = next((w for w in words if len(w) > MAX_WORD), None)
    if long is not None:  # a word too long for any move: quoted cut, not echoed whole
        raise MoveError(too_long(long, piles))
    tokens: list[Move | int] = []
    for i, word in enumerate(words, 1):  # a bad word named by its place, as an illegal move is
        try:
            tokens.append(parse_input(word, piles))
        except MoveError as exc:
            raise MoveError(f"move {i} of --moves: {exc}") from None
    states, moves = [state], []
    labelled: int | None = None  # the card the last move played, which may follow it as its label
    for i, token in enumerate(tokens, 1):
        here = states[-1]
        if isinstance(token, Move):
            move = token
            if move not in here.legal_moves():
                raise IllegalMoveError(f"move {i} of --moves ({move}): {why_illegal(here, move)}")
        elif token == labelled:
            labelled = None
            continue
        else:
            try:
                move = move_for_card(here, token)
            except IllegalMoveError as exc:
                raise IllegalMoveError(f"move {i} of --moves ({NAMES[token]}): {exc}") from None
        labelled = here.card_of(move) if move.is_play else None
        states.append(here.apply(move))
        moves.append(move)
    return states, moves


def without_label(before: State, move: Move, rest: list[str] | tuple[str, ...]) -> list[str]:
    """The words after ``move`` (played in ``before``), less the first when it names the card the move played:
    that card is the move's label (``solve``'s line reads ``r3 9C d``), read as in :func:`follow`."""
    words = list(rest)
    if not words or not move.is_play:
        return words
    try:
        token = parse_input(words[0], before.rules.reserve_piles)
    except MoveError:
        return words
    return words[1:] if isinstance(token, int) and token == before.card_of(move) else words


class MovesType(click.ParamType):
    """A list of move words, ``"d w r2"`` or ``"d,w"``, or card names (``"d 5s"``), read by :func:`follow`
    once the game's rules are known (every option read), so that an error offers the game's own piles."""

    name = "moves"

    def convert(self, value: Any, param: click.Parameter | None,
                ctx: click.Context | None) -> list[str]:
        if isinstance(value, list):
            return value
        return utf8_argument(str(value)).replace(",", " ").split()  # 5\u2663 typed in a C locale


MOVES = MovesType()


#: Longer than any move or card name (``r1``, ``10h``, ``QS``): a word this long is quoted cut.
MAX_WORD = 40


def too_long(word: str, piles: int = 4) -> str:
    """The error for a word longer than any move or card, quoted cut (``'xxx...' (5000 characters)``).

    ``piles``: the game's reserve piles, for the moves offered instead.
    """
    from ..notation import expected

    return f"unknown move {quoted(word)}: {expected(piles, cards=True)}"


LINE_COMMANDS = frozenset({"t", "u", "r", "h", "s", "q", "?", "undo", "redo", "hint", "save", "quit", "exit", "help"})
"""The words line-mode play reads as commands when they make up the line (``u`` and ``s`` with their argument)."""


def unreadable_word(words: Iterable[str], piles: int = 4) -> str | None:
    """The error for the first word of a typed line that is no move or card at all, else None.

    A line is read whole before any of it is played: a typo at its end no longer plays the moves before it.
    ``piles``: the game's reserve piles, for what the error offers instead.
    """
    from ..errors import MoveError
    from ..notation import parse_input

    words = list(words)
    for i, word in enumerate(words):
        after = words[i + 1] if i + 1 < len(words) else ""
        if word.lower() == "r" and after.isdigit():  # "r 1": a pile number typed apart from its r
            if not piles:
                return f"'{word} {after}' is no move: this game has no reserve; nothing of the line was played"
            typed = f"r{after}" if after in [str(n) for n in range(1, piles + 1)] else (
                f"r1 to r{piles}" if piles > 1 else "r1")
            return (f"'{word} {after}' is no move: a reserve pile is typed with its number and no space, "
                    f"{typed}; nothing of the line was played")
        if len(words) > 1 and word.lower() in LINE_COMMANDS:  # "d t": t is no move, and it goes alone
            return f"{word} is a command, not a move: type it on a line of its own; nothing of the line was played"
        if len(word) > MAX_WORD:  # no move or card is this long: quote it cut, not a megabyte of it
            error = too_long(word, piles)
            return f"{error}; nothing of the line was played" if len(words) > 1 else error
        try:
            move = parse_input(word, piles)
        except MoveError as exc:
            return f"{exc}; nothing of the line was played" if len(words) > 1 else str(exc)
        if isinstance(move, Move) and move.kind == "r" and move.pile >= piles and len(words) > 1:
            # r3 in a game of two piles, or r1 in Bridesmaids: no move of this game, so the line stops before
            # any of it is played, as for r5 (alone, the game's own refusal says the same)
            have = (f"this game has {piles} reserve pile{'s' * (piles > 1)} (r1{f'-r{piles}' * (piles > 1)})"
                    if piles else "this game has no reserve")
            return f"{word} is no move here: reserve pile {move.pile + 1} does not exist; {have}; nothing of the line was played"
    return None


def played_before(moves: list[str]) -> str:
    """What a line's failed move leaves played before it: " (played before it: d d)", or nothing."""
    return f" (played before it: {' '.join(moves)})" if moves else ""


def answer_forms(piles: int = 4) -> str:
    """The forms an answer takes in a game of ``piles`` reserve piles, for a lesson's or a drill's help:
    ``r1-r4 (a reserve pile), w (the waste), d (turn the talon) or a card like 7h``."""
    from ..notation import expected

    return expected(piles, cards=True).removeprefix("expected ")
