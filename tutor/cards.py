"""Cards: ranks, suits, and the parse/format pair for card names.

Inside the engine a card is a small int, ``suit * 13 + rank - 1`` with suits
in the order S H D C; :class:`Card` is the readable value built on it.
Names are rank then suit (``7S``, ``TH``); input also takes ``10h``, lower
case and the suit symbols.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from .errors import CardError
from .textsafe import brief, quoted

RANKS = "A23456789TJQK"
SUITS = "SHDC"
SUIT_SYMBOLS = "♠♥♦♣"
SUIT_NAMES = ("spades", "hearts", "diamonds", "clubs")
RANK_NAMES = ("ace", "2", "3", "4", "5", "6", "7", "8", "9", "10", "jack", "queen", "king")
RED_SUITS = frozenset((1, 2))

_SYMBOL_TO_SUIT = {sym: i for i, sym in enumerate(SUIT_SYMBOLS)}
# The outlined symbols some fonts and keyboards produce mean the same suits.
_SYMBOL_TO_SUIT.update({"♤": 0, "♡": 1, "♢": 2, "♧": 3})

_EXPECTED = "expected a rank A,2-9,T (or 10),J,Q,K and a suit S,H,D,C (or ♠♥♦♣), like 7S or 10h"


@dataclass(frozen=True, slots=True, order=True)
class Card:
    """A playing card; ``rank`` is 1 (ace) to 13 (king), ``suit`` 0-3 for S H D C."""

    suit: int
    rank: int

    def __post_init__(self) -> None:
        if not (1 <= self.rank <= 13 and 0 <= self.suit <= 3):
            raise CardError(f"no such card: rank {self.rank}, suit {self.suit}")

    @classmethod
    def parse(cls, text: str) -> Card:
        return CARDS[parse_card(text)]

    @classmethod
    def from_index(cls, index: int) -> Card:
        return CARDS[index]

    @property
    def index(self) -> int:
        return self.suit * 13 + self.rank - 1

    @property
    def is_red(self) -> bool:
        return self.suit in RED_SUITS

    def symbol(self) -> str:
        """The card with its suit symbol, ``7♠``."""
        return RANKS[self.rank - 1] + SUIT_SYMBOLS[self.suit]

    def __str__(self) -> str:
        return RANKS[self.rank - 1] + SUITS[self.suit]

    def __repr__(self) -> str:
        return f"Card.parse({str(self)!r})"


CARDS: tuple[Card, ...] = tuple(Card(s, r) for s in range(4) for r in range(1, 14))
NAMES: tuple[str, ...] = tuple(str(c) for c in CARDS)
SYMBOLS: tuple[str, ...] = tuple(c.symbol() for c in CARDS)


def suit_of(index: int) -> int:
    return index // 13


def rank_of(index: int) -> int:
    """Rank 1..13 of a card index."""
    return index % 13 + 1


def parse_card(text: str) -> int:
    """Parse a card name to its index; raise :class:`CardError` naming the input (quoted cut, as a file spells it).

    The suit is a letter S, H, D, C in either case or a suit symbol; a symbol may carry the
    variation selector that phone keyboards add (``♥️``)."""
    if not isinstance(text, str):
        raise CardError(f"unknown card {brief(text)}: {_EXPECTED}")
    raw = text.strip().replace("\ufe0f", "").replace("\ufe0e", "")
    if len(raw) < 2:
        raise CardError(f"unknown card {quoted(text)}: {_EXPECTED}")
    suit_char = raw[-1]
    rank_text = raw[:-1].upper()
    if suit_char in _SYMBOL_TO_SUIT:
        suit = _SYMBOL_TO_SUIT[suit_char]
    else:
        suit = SUITS.find(suit_char.upper()) if suit_char.isascii() else -1
        if suit < 0:
            raise CardError(f"unknown card {quoted(text)}: {_EXPECTED}")
    if rank_text == "10":
        rank_text = "T"
    if len(rank_text) != 1 or rank_text not in RANKS:
        raise CardError(f"unknown card {quoted(text)}: {_EXPECTED}")
    return suit * 13 + RANKS.index(rank_text)


def format_card(index: int, symbols: bool = False) -> str:
    """The two-letter name of a card index (``7S``), or with its suit symbol."""
    return SYMBOLS[index] if symbols else NAMES[index]


def parse_cards(text: str) -> list[int]:
    """Parse a space- or comma-separated list of card names."""
    return [parse_card(tok) for tok in text.replace(",", " ").split()]


def format_cards(indices: Iterable[int], symbols: bool = False) -> str:
    return " ".join(format_card(i, symbols) for i in indices)
