"""What a player types as moves: the ``--moves`` option of solve and hint, and the words of a typed line.

A word that is no move or card at all is refused before any move is played,
with the moves of the game's own rules (its reserve piles) as what would be
right. Line-mode play, the board's prompt, drills and lessons read words alike.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import click

from ..cards import NAMES
from ..errors import IllegalMoveError, MoveError
from ..notation import Move, parse_input
from ..state import State
from ..talon import why_illegal
from ..textsafe import quoted, utf8_argument


def follow(state: State, tokens: Iterable[Token] | None) -> tuple[list[State], list[Move]]:
    """``state`` and the position after each of ``--moves`` (:class:`MovesType`'s tokens), and the moves.

    A card names the move that plays it, as in play. A card right after the
    move that played it is that move's label (``solve``'s line reads
    ``r2 QS d``), so a line printed by ``solve`` pastes back as it is. An
    illegal move or card names its place in the list. A word that is no move
    or card at all is refused before any move is played, with the moves of
    this game's rules (its reserve piles) as what would be right.
    """
    from ..knowledge import move_for_card

    tokens = list(tokens or [])
    bad = next((t for t in tokens if isinstance(t, BadWord)), None)
    if bad is not None:
        raise MoveError(bad.error(state.rules.reserve_piles))
    states, moves = [state], []
    labelled: int | None = None  # the card the last move played, which may follow it as its label
    for i, token in enumerate(tokens, 1):
        here = states[-1]
        assert not isinstance(token, BadWord)
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


@dataclass(frozen=True)
class BadWord:
    """A word of ``--moves`` that is no move or card at all, kept for :func:`follow` to refuse.

    What would be right depends on the game's reserve piles, known only once every option is read.
    """

    place: int
    word: str

    def error(self, piles: int) -> str:
        if len(self.word) > MAX_WORD:  # a word too long for any move: quoted cut, not echoed whole
            return too_long(self.word, piles)
        try:
            parse_input(self.word, piles)
        except MoveError as exc:
            return f"move {self.place} of --moves: {exc}"
        raise AssertionError(f"{self.word!r} reads as a move")


Token = Move | int | BadWord
"""One word of ``--moves``: a move, a card index, or a word that is neither."""


class MovesType(click.ParamType):
    """A list of move tokens, ``"d w r2"``, or card names (``"d 5s"``): a :class:`Move` or a card index each.

    A card is resolved against the position by :func:`follow`, which also refuses a :class:`BadWord`.
    """

    name = "moves"

    def convert(self, value: Any, param: click.Parameter | None,
                ctx: click.Context | None) -> list[Token]:
        if isinstance(value, list):
            return value
        value = utf8_argument(str(value))  # 5\u2663 typed in a C locale
        # A bad token is an input error (exit 1), not a usage error, refused by follow() with the game's piles.
        long = next((w for w in str(value).split() if len(w) > MAX_WORD), None)
        if long is not None:
            return [BadWord(0, long)]
        tokens = str(value).replace(",", " ").split()
        moves: list[Token] = []
        for i, token in enumerate(tokens, 1):  # a bad token named by its place, as an illegal move is
            try:
                moves.append(parse_input(token))
            except MoveError:
                moves.append(BadWord(i, token))
        return moves


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
            parse_input(word, piles)
        except MoveError as exc:
            return f"{exc}; nothing of the line was played" if len(words) > 1 else str(exc)
    return None


def played_before(moves: list[str]) -> str:
    """What a line's failed move leaves played before it: " (played before it: d d)", or nothing."""
    return f" (played before it: {' '.join(moves)})" if moves else ""
