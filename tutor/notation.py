"""Move tokens and what a player may type as a move.

A move is ``r1``..``r4`` (play the top card of a reserve pile), ``w`` (play
the waste's top card) or ``d`` (turn the talon, which is also the redeal when
the stock is empty). Every card has at most one legal destination, so a move
never names a target.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from .cards import parse_card
from .errors import CardError, MoveError


def expected(piles: int = 4, cards: bool = False) -> str:
    """What a move may be in a game of ``piles`` reserve piles (0-4): "expected r1-r4 (a reserve pile), w ...".

    ``cards``: a card name may be typed too (what a player types, not a record's move list).
    """
    kinds = ({0: [], 1: ["r1 (the reserve pile)"]}.get(piles, [f"r1-r{piles} (a reserve pile)"])
             + ["w (the waste)", "d (turn the talon)"] + (["a card like 7h"] if cards else []))
    return f"expected {', '.join(kinds[:-1])} or {kinds[-1]}"


_EXPECTED = expected()
_EXPECTED_INPUT = expected(cards=True)


@dataclass(frozen=True, slots=True)
class Move:
    """One player move. ``kind`` is 'r', 'w' or 'd'; ``pile`` is 0-3 for 'r'."""

    kind: str
    pile: int = 0

    @classmethod
    def parse(cls, text: str) -> Move:
        if not isinstance(text, str):
            raise MoveError(f"unknown move {text!r}: {_EXPECTED}")
        move = _BY_TOKEN.get(text.strip().lower())
        if move is None:
            raise MoveError(f"unknown move {text!r}: {_EXPECTED}")
        return move

    @property
    def is_play(self) -> bool:
        return self.kind != "d"

    def __str__(self) -> str:
        return f"r{self.pile + 1}" if self.kind == "r" else self.kind

    def __repr__(self) -> str:
        return f"Move.parse({str(self)!r})"


RESERVE_MOVES: tuple[Move, ...] = tuple(Move("r", i) for i in range(4))
WASTE = Move("w")
TURN = Move("d")
ALL_MOVES: tuple[Move, ...] = RESERVE_MOVES + (WASTE, TURN)
_BY_TOKEN = {str(m): m for m in ALL_MOVES}


def parse_move(text: str) -> Move:
    return Move.parse(text)


def format_move(move: Move) -> str:
    return str(move)


def parse_moves(text: str | Iterable[str]) -> list[Move]:
    """Parse a list of move tokens (a string separated by spaces or commas, or a list)."""
    tokens = text.replace(",", " ").split() if isinstance(text, str) else list(text)
    return [Move.parse(t) for t in tokens]


def format_moves(moves: Iterable[Move]) -> str:
    return " ".join(str(m) for m in moves)


def parse_input(text: str, piles: int = 4) -> Move | int:
    """What a player typed as a move: a :class:`Move`, or a card index for a card name.

    The state decides whether a typed card is playable (``State.move_for_card``).
    ``piles``: the game's reserve piles, for what the error offers instead.
    """
    try:
        return Move.parse(text)
    except MoveError:
        pass
    try:
        return parse_card(text)
    except CardError:
        raise MoveError(f"unknown move {text!r}: {expected(piles, cards=True)}") from None
