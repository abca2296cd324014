"""Deals: PySolFC deal numbers (through pysol-cards) and deal files.

A :class:`Deal` is the full layout before the first move: reserve piles
(bottom to top), the base card and the talon (next card to turn first).
Deal number N (1 to 10**20, the whole range of PySolFC's game numbers) is
game N of Osmosis in PySolFC, dealt the way PySolFC deals it: the shuffled
list is read from its end; cards 0-15 go round-robin to the reserve (card i
to pile i mod 4), card 16 is the base card, the rest is the talon.
"""

from __future__ import annotations

import json
import os
import random
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TypedDict

from pysol_cards.cards import createCards, ms_rearrange
from pysol_cards.random import LCRandom31, MTRandom

from .cards import NAMES, parse_card
from .errors import CardError, DealError
from .inputs import load_json
from .rules import PILE_SIZE, Rules
from .storage import atomic_write_text
from .textsafe import brief, quoted

DEAL_FORMAT = "osmosis-deal/1"
#: The largest deal number, taken: PySolFC draws its random game numbers from 0 to this (10**20,
#: ``pysol_cards``' ``MTRandom.MAX_SEED``) and its "next game" goes up to it; 0 is refused.
MAX_DEAL_NUMBER: int = int(MTRandom.MAX_SEED)
DEAL_RANGE = f"1 to {MAX_DEAL_NUMBER}"


class DealJSON(TypedDict):
    """A deal as a deal file (and a record's inline deal) holds it: card names."""

    format: str
    reserves: list[list[str]]
    base: str
    talon: list[str]


@dataclass(frozen=True, slots=True)
class Deal:
    """A layout: ``reserves`` bottom to top, ``base``, ``talon`` in turning order (card ints)."""

    reserves: tuple[tuple[int, ...], ...]
    base: int
    talon: tuple[int, ...]
    number: int | None = None

    def __post_init__(self) -> None:
        validate_cards(self.reserves, self.base, self.talon)

    @property
    def reserve_piles(self) -> int:
        return len(self.reserves)

    def to_json(self) -> DealJSON:
        return {
            "format": DEAL_FORMAT,
            "reserves": [[NAMES[c] for c in pile] for pile in self.reserves],
            "base": NAMES[self.base],
            "talon": [NAMES[c] for c in self.talon],
        }

    def record_ref(self) -> DealJSON | dict[str, int]:
        """How a game record names this deal: its number, or the deal inline."""
        if self.number is not None:
            return {"number": self.number}
        return self.to_json()

    @classmethod
    def from_json(cls, data: object, source: str = "deal") -> Deal:
        if not isinstance(data, dict):
            raise DealError(f"{source}: expected a JSON object with reserves, base and talon")
        fmt = data.get("format", DEAL_FORMAT)
        if fmt != DEAL_FORMAT:
            raise DealError(f"{source}: format {brief(fmt)} is not supported: expected {DEAL_FORMAT!r}")
        for key in ("reserves", "base", "talon"):
            if key not in data:
                raise DealError(f"{source}: missing field {key!r}: a deal has reserves, base and talon")
        reserves = data["reserves"]
        if not isinstance(reserves, list) or not all(isinstance(p, list) for p in reserves):
            raise DealError(f"{source}: 'reserves' must be a list of piles, each a list of card names")
        if not isinstance(data["talon"], list):
            raise DealError(f"{source}: 'talon' must be a list of card names")
        try:
            piles = tuple(tuple(parse_card(c) for c in pile) for pile in reserves)
            base = parse_card(data["base"])
            talon = tuple(parse_card(c) for c in data["talon"])
        except CardError as exc:
            raise DealError(f"{source}: {exc}") from None
        try:
            return cls(piles, base, talon)
        except DealError as exc:
            raise DealError(f"{source}: {exc}") from None


def validate_cards(reserves: Sequence[Sequence[int]], base: int, talon: Sequence[int]) -> None:
    """Check that a layout holds each of the 52 cards once, with piles of four."""
    if len(reserves) > 4:
        raise DealError(f"{len(reserves)} reserve piles: expected at most 4")
    for i, pile in enumerate(reserves, 1):
        if len(pile) != PILE_SIZE:
            raise DealError(f"reserve pile {i} has {len(pile)} cards: expected {PILE_SIZE}")
    all_cards = [c for pile in reserves for c in pile] + [base] + list(talon)
    seen: set[int] = set()
    dups = []
    for c in all_cards:
        if c in seen:
            dups.append(NAMES[c])
        seen.add(c)
    if dups:
        raise DealError(f"duplicate card(s) {' '.join(sorted(set(dups)))}: each of the 52 cards must appear once")
    missing = [NAMES[c] for c in range(52) if c not in seen]
    if missing:
        raise DealError(f"missing card(s) {' '.join(missing)}: each of the 52 cards must appear once")
    expected_talon = 51 - PILE_SIZE * len(reserves)
    if len(talon) != expected_talon:  # pragma: no cover - implied by the two checks above
        raise DealError(f"talon has {len(talon)} cards: expected {expected_talon}")


def _pysol_order(number: int) -> list[int]:
    """The 52 cards as PySolFC deals them (the shuffled list read from its end)."""
    cards = createCards(1)
    # PySolFC: numbers below 32000 use the Microsoft-compatible LC generator
    # on the rearranged deck; 32000 and up use the Mersenne Twister.
    if number < 32000:
        rng = LCRandom31()
        rng.setSeed(number)
        shuffled = rng.shuffle(ms_rearrange(cards))
    else:
        rng = MTRandom()
        rng.setSeed(number)
        shuffled = rng.shuffle(cards)
    # pysol-cards numbers suits C S H D; ours are S H D C.
    suit_map = {0: 3, 1: 0, 2: 1, 3: 2}
    return [suit_map[c.suit] * 13 + c.rank - 1 for c in reversed(shuffled)]


def deal_number(number: int, reserve_piles: int = 4) -> Deal:
    """Deal ``number`` exactly as PySolFC deals it for this many reserve piles."""
    if isinstance(number, bool) or not isinstance(number, int) or not 1 <= number <= MAX_DEAL_NUMBER:
        raise DealError(f"deal number {number!r} is out of range: expected {DEAL_RANGE}")
    d = _pysol_order(number)
    n = reserve_piles * PILE_SIZE
    reserves = tuple(tuple(d[i] for i in range(n) if i % reserve_piles == p) for p in range(reserve_piles))
    return Deal(reserves, d[n], tuple(d[n + 1:]), number=number)


def deal_for(number: int, rules: Rules) -> Deal:
    return deal_number(number, rules.reserve_piles)


_DIGITS = re.compile(r"[0-9]{1,30}")


def parse_deal_number(text: str) -> int:
    """A deal number typed by a player: ASCII digits only, spaces around them ignored (no sign, ``_``, inner
    spaces or other scripts' digits), from 1 to :data:`MAX_DEAL_NUMBER`."""
    text = str(text).strip(" \t\r\n")
    if not _DIGITS.fullmatch(text):
        raise DealError(f"deal number {quoted(text, limit=40)} is not a number: expected a whole number "
                        f"from {DEAL_RANGE}, in the digits 0-9")
    value = int(text)
    if not 1 <= value <= MAX_DEAL_NUMBER:
        raise DealError(f"deal number {quoted(text, limit=40)} is out of range: expected {DEAL_RANGE}")
    return value


def random_deal_number(rng: random.Random | None = None) -> int:
    """A random deal number in PySolFC's usual range."""
    return (rng or random.SystemRandom()).randint(1, 999_999_999)


def check_rules(deal: Deal, rules: Rules) -> None:
    """A deal file must have as many reserve piles as the variant."""
    if deal.reserve_piles != rules.reserve_piles:
        raise DealError(f"the deal has {deal.reserve_piles} reserve piles but the variant "
                        f"wants {rules.reserve_piles}: use a matching --variant or --reserve-piles")


def load_deal(path: str | os.PathLike[str]) -> Deal:
    """Read a deal file (with a single read, so a pipe works); :class:`DealError` names the file and the problem."""
    data = load_json(path, "deal file", DealError)
    return Deal.from_json(data, source=f"deal file {quoted(path)}")


def deal_text(deal: Deal) -> str:
    """The deal file text (spec section 2), one pile per line: what ``osmosis deal --json`` prints and a save writes."""
    data = deal.to_json()
    fields = [f'  "format": {json.dumps(data["format"])}',
              '  "reserves": [' + ",\n               ".join(json.dumps(p) for p in data["reserves"]) + "]",
              f'  "base": {json.dumps(data["base"])}',
              f'  "talon": {json.dumps(data["talon"])}']
    return "{\n" + ",\n".join(fields) + "\n}"


def save_deal(deal: Deal, path: str | os.PathLike[str]) -> None:
    """Write ``deal`` as a deal file (atomically: a failed save leaves the old file)."""
    atomic_write_text(path, deal_text(deal) + "\n")
